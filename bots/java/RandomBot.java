import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A bot that plays a random legal move in every arena game.
 *
 * <p>The JDK alone ({@link Json}, beside this file, reads and writes the
 * messages). It reads one JSON message per line on stdin and answers
 * {@code start} with {@code ready} and {@code move} with one of the listed
 * legal moves, which is always legal, whatever the game. It plays any number
 * of games and exits when its input closes. Debug output goes to stderr
 * ({@code System.err}), never stdout: stdout carries protocol lines only.
 *
 * <p>To write your own bot, copy this folder and change {@link #chooseMove}
 * (and, if you keep per-game memory, reset it where {@code start} is
 * handled); build.sh builds it, {@code bot} runs it. The protocol is in
 * protocol.md; the rules of the games are in docs/rules.md.
 */
public final class RandomBot {
    private RandomBot() {}

    /**
     * Returns one of the request's {@code legal_moves}. YOUR LOGIC GOES HERE.
     *
     * <p>{@code message.get("state")} is your view of the game (its shape
     * depends on {@code game}, see protocol.md section 6), {@code
     * message.get("history")} the moves so far and {@code
     * message.get("legal_moves")} every move you may make, already in reply
     * form. {@code seat} is 1 or 2; per-seat lists in the state are [seat 1's,
     * seat 2's]: in Number Snatch, your score is
     * {@code Json.integer(Json.array(Json.object(message.get("state")).get("scores")).get(seat - 1))}.
     */
    static Object chooseMove(Map<String, Object> message, String game, int seat, Random random) {
        List<Object> moves = Json.array(message.get("legal_moves"));
        return moves.get(random.nextInt(moves.size()));
    }

    public static void main(String[] args) throws IOException {
        // UTF-8 both ways, whatever the locale says. The writer is ours, not
        // System.out, so that only replies reach stdout.
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Writer out = new BufferedWriter(
                new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8));
        Random random = new Random();
        String game = null;
        int seat = 0;
        // One message per line, of any length; null when stdin closes.
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            Map<String, Object> message;
            try {
                message = Json.object(Json.parse(line));
            } catch (Json.JsonException error) {
                System.err.println("ignoring a line I cannot read: " + error.getMessage());
                continue;
            }
            Object type = message.get("type");
            Map<String, Object> reply = new LinkedHashMap<>();
            if ("start".equals(type)) {
                // A new game (the same process may play many): read everything
                // from this message and reset any per-game state here.
                game = Json.string(message.get("game"));
                seat = (int) Json.integer(message.get("seat"));
                // Your seat's own seed: the same tournament replays the same
                // games, and the other seat cannot work it out.
                random = new Random(Json.integer(message.get("seed")));
                reply.put("type", "ready");
                reply.put("id", message.get("id"));
                reply.put("name", "RandomBot.java");
            } else if ("move".equals(type)) {
                Object move = chooseMove(message, game, seat, random);
                reply.put("type", "move");
                reply.put("id", message.get("id"));
                reply.put("move", move);
            } else {
                continue; // reveal, over and message types this bot does not know
            }
            // Exactly one line, flushed at once: without flush() the reply
            // stays in the buffer and the referee waits for it until your
            // time runs out.
            out.write(Json.write(reply));
            out.write('\n');
            out.flush();
        }
    }
}
