import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader and writer for arena bots: Java's standard library has
 * none, and a bot should need nothing but the JDK.
 *
 * <p>JSON values become plain Java objects: {@code null}, {@link Boolean},
 * {@link Long} (integers), {@link Double} (other numbers), {@link String},
 * {@code List<Object>} and {@code Map<String, Object>} (a {@link
 * LinkedHashMap}, which keeps the order of the fields). {@link #write}
 * takes the same, plus any other {@link Number}, and writes compact JSON on
 * one line.
 *
 * <pre>{@code
 * Map<String, Object> message = Json.object(Json.parse(line));
 * long id = Json.integer(message.get("id"));
 * List<Object> moves = Json.array(message.get("legal_moves"));
 * String reply = Json.write(Map.of("type", "move", "id", id, "move", moves.get(0)));
 * }</pre>
 *
 * <p>{@link #object}, {@link #array}, {@link #integer} and {@link #string}
 * cast a value read from JSON, failing with a message that names what was
 * expected and what came.
 */
public final class Json {
    private Json() {}

    /** Text that is not JSON, or a value of another kind than expected. */
    public static final class JsonException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        JsonException(String message) {
            super(message);
        }
    }

    /** Reads one JSON text, such as a line from the referee. */
    public static Object parse(String text) {
        Parser parser = new Parser(text);
        Object value = parser.value(0);
        parser.skipSpace();
        if (parser.at < text.length()) {
            throw parser.fail("text after the JSON value");
        }
        return value;
    }

    /** Writes a value as compact JSON on one line. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    /** {@code value} as a JSON object. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(Object value) {
        if (value instanceof Map) {
            return (Map<String, Object>) value;
        }
        throw new JsonException("expected an object, got " + describe(value));
    }

    /** {@code value} as a JSON array. */
    @SuppressWarnings("unchecked")
    public static List<Object> array(Object value) {
        if (value instanceof List) {
            return (List<Object>) value;
        }
        throw new JsonException("expected an array, got " + describe(value));
    }

    /** {@code value} as a whole number. */
    public static long integer(Object value) {
        if (value instanceof Long || value instanceof Integer) {
            return ((Number) value).longValue();
        }
        throw new JsonException("expected an integer, got " + describe(value));
    }

    /** {@code value} as a string. */
    public static String string(Object value) {
        if (value instanceof String) {
            return (String) value;
        }
        throw new JsonException("expected a string, got " + describe(value));
    }

    private static String describe(Object value) {
        return value == null ? "null" : write(value);
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String) {
            writeString((String) value, out);
        } else if (value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Double || value instanceof Float) {
            double number = ((Number) value).doubleValue();
            if (Double.isNaN(number) || Double.isInfinite(number)) {
                throw new JsonException("JSON has no NaN or infinity");
            }
            out.append(value);
        } else if (value instanceof Number) {
            out.append(value); // Long, Integer, BigInteger, BigDecimal...
        } else if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> field : ((Map<?, ?>) value).entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                writeString(String.valueOf(field.getKey()), out);
                out.append(':');
                write(field.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof Iterable) {
            out.append('[');
            boolean first = true;
            for (Object item : (Iterable<?>) value) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                write(item, out);
            }
            out.append(']');
        } else {
            throw new JsonException("cannot write a " + value.getClass().getName() + " as JSON");
        }
    }

    private static void writeString(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                default:
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }

    /** A recursive-descent reader over one text. */
    private static final class Parser {
        private static final int MAX_DEPTH = 512;
        private final String text;
        private int at;

        Parser(String text) {
            this.text = text;
        }

        JsonException fail(String what) {
            return new JsonException("not JSON: " + what + " at character " + at);
        }

        void skipSpace() {
            while (at < text.length()) {
                char c = text.charAt(at);
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                    break;
                }
                at++;
            }
        }

        char peek() {
            if (at >= text.length()) {
                throw fail("unexpected end");
            }
            return text.charAt(at);
        }

        void expectWord(String word) {
            if (!text.startsWith(word, at)) {
                throw fail("expected " + word);
            }
            at += word.length();
        }

        Object value(int depth) {
            if (depth > MAX_DEPTH) {
                throw fail("nested too deep");
            }
            skipSpace();
            char c = peek();
            switch (c) {
                case 'n':
                    expectWord("null");
                    return null;
                case 't':
                    expectWord("true");
                    return Boolean.TRUE;
                case 'f':
                    expectWord("false");
                    return Boolean.FALSE;
                case '"':
                    return string();
                case '[':
                    return array(depth);
                case '{':
                    return object(depth);
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return number();
                    }
                    throw fail("unexpected character '" + c + "'");
            }
        }

        List<Object> array(int depth) {
            at++;
            List<Object> items = new ArrayList<>();
            skipSpace();
            if (peek() == ']') {
                at++;
                return items;
            }
            while (true) {
                items.add(value(depth + 1));
                skipSpace();
                char c = peek();
                at++;
                if (c == ']') {
                    return items;
                }
                if (c != ',') {
                    at--;
                    throw fail("expected , or ]");
                }
            }
        }

        Map<String, Object> object(int depth) {
            at++;
            Map<String, Object> fields = new LinkedHashMap<>();
            skipSpace();
            if (peek() == '}') {
                at++;
                return fields;
            }
            while (true) {
                skipSpace();
                if (peek() != '"') {
                    throw fail("expected a field name");
                }
                String key = string();
                skipSpace();
                if (peek() != ':') {
                    throw fail("expected :");
                }
                at++;
                fields.put(key, value(depth + 1));
                skipSpace();
                char c = peek();
                at++;
                if (c == '}') {
                    return fields;
                }
                if (c != ',') {
                    at--;
                    throw fail("expected , or }");
                }
            }
        }

        Object number() {
            int start = at;
            boolean integral = true;
            if (text.charAt(at) == '-') {
                at++;
            }
            digits();
            if (at < text.length() && text.charAt(at) == '.') {
                integral = false;
                at++;
                digits();
            }
            if (at < text.length() && (text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
                integral = false;
                at++;
                if (at < text.length() && (text.charAt(at) == '+' || text.charAt(at) == '-')) {
                    at++;
                }
                digits();
            }
            String literal = text.substring(start, at);
            if (integral) {
                BigInteger whole = new BigInteger(literal);
                if (whole.bitLength() < 64) {
                    return whole.longValue();
                }
                return whole; // beyond a long: kept exactly
            }
            return new BigDecimal(literal).doubleValue();
        }

        void digits() {
            int first = at;
            while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
                at++;
            }
            if (at == first) {
                throw fail("expected a digit");
            }
        }

        String string() {
            at++; // the opening quote
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = peek();
                at++;
                if (c == '"') {
                    return out.toString();
                }
                if (c < 0x20) {
                    at--;
                    throw fail("control character in a string");
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char escape = peek();
                at++;
                switch (escape) {
                    case '"':
                    case '\\':
                    case '/':
                        out.append(escape);
                        break;
                    case 'b':
                        out.append('\b');
                        break;
                    case 'f':
                        out.append('\f');
                        break;
                    case 'n':
                        out.append('\n');
                        break;
                    case 'r':
                        out.append('\r');
                        break;
                    case 't':
                        out.append('\t');
                        break;
                    case 'u':
                        if (at + 4 > text.length()) {
                            throw fail("short \\u escape");
                        }
                        try {
                            // Java strings are UTF-16: a surrogate pair is
                            // two chars, as JSON writes it.
                            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        } catch (NumberFormatException e) {
                            throw fail("bad \\u escape");
                        }
                        at += 4;
                        break;
                    default:
                        at--;
                        throw fail("bad escape \\" + escape);
                }
            }
        }
    }
}
