// json.hpp: a small JSON reader and writer for arena bots.
//
// C++17 and its standard library only, so the kit builds anywhere g++ does.
// It reads what the referee sends and writes what a bot answers; it is not
// a general-purpose JSON library (no comments, no streaming), but it
// accepts any valid JSON and writes compact JSON on one line.
//
//   json::Value message = json::parse(line);          // throws json::Error
//   std::int64_t id = message["id"].as_int();
//   const json::Array& moves = message["legal_moves"].as_array();
//   json::Value reply = json::Value::object({{"type", "move"}, {"id", id}, {"move", moves[0]}});
//   std::string text = reply.dump();                   // {"type":"move","id":2,"move":7}
//
// Integers are kept exactly (std::int64_t); other numbers are doubles.
// Reading a field that is absent, or an index past the end, gives null;
// as_int(), as_string() and the like throw json::Error when the value is
// of another kind, naming both kinds.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace json {

/// A value that is not what the program expected, or text that is not JSON.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Value;
using Array = std::vector<Value>;

enum class Kind { Null, Bool, Int, Double, String, Array, Object };

/// One JSON value: null, a boolean, a number, a string, an array or an
/// object (whose fields keep their order).
class Value {
public:
    Value() = default;
    Value(std::nullptr_t) {}
    Value(bool value) : kind_(Kind::Bool), bool_(value) {}
    Value(int value) : kind_(Kind::Int), int_(value) {}
    Value(long value) : kind_(Kind::Int), int_(value) {}
    Value(long long value) : kind_(Kind::Int), int_(value) {}
    Value(unsigned value) : kind_(Kind::Int), int_(value) {}
    Value(unsigned long value) : kind_(Kind::Int), int_(static_cast<std::int64_t>(value)) {}
    Value(unsigned long long value) : kind_(Kind::Int), int_(static_cast<std::int64_t>(value)) {}
    Value(double value) : kind_(Kind::Double), double_(value) {}
    Value(const char* value) : kind_(Kind::String), string_(value) {}
    Value(std::string value) : kind_(Kind::String), string_(std::move(value)) {}
    Value(Array items) : kind_(Kind::Array), items_(std::move(items)) {}

    /// An object with these fields, in this order.
    static Value object(std::initializer_list<std::pair<std::string, Value>> fields = {}) {
        Value value;
        value.kind_ = Kind::Object;
        for (const auto& field : fields) value.set(field.first, field.second);
        return value;
    }

    Kind kind() const { return kind_; }
    bool is_null() const { return kind_ == Kind::Null; }
    bool is_bool() const { return kind_ == Kind::Bool; }
    bool is_int() const { return kind_ == Kind::Int; }
    bool is_number() const { return kind_ == Kind::Int || kind_ == Kind::Double; }
    bool is_string() const { return kind_ == Kind::String; }
    bool is_array() const { return kind_ == Kind::Array; }
    bool is_object() const { return kind_ == Kind::Object; }

    bool as_bool() const { return expect(Kind::Bool).bool_; }
    std::int64_t as_int() const { return expect(Kind::Int).int_; }
    double as_double() const {
        return kind_ == Kind::Int ? static_cast<double>(int_) : expect(Kind::Double).double_;
    }
    const std::string& as_string() const { return expect(Kind::String).string_; }
    const Array& as_array() const { return expect(Kind::Array).items_; }

    /// The field `key` of an object; null when it is absent.
    const Value& operator[](const std::string& key) const {
        expect(Kind::Object);
        for (std::size_t i = 0; i < keys_.size(); ++i) {
            if (keys_[i] == key) return items_[i];
        }
        return null_value();
    }

    /// Element `index` of an array; null past the end.
    const Value& operator[](std::size_t index) const {
        const Array& items = as_array();
        return index < items.size() ? items[index] : null_value();
    }
    const Value& operator[](int index) const {
        return index < 0 ? null_value() : (*this)[static_cast<std::size_t>(index)];
    }

    bool contains(const std::string& key) const {
        if (kind_ != Kind::Object) return false;
        for (const auto& name : keys_) {
            if (name == key) return true;
        }
        return false;
    }

    /// The number of elements of an array or fields of an object.
    std::size_t size() const {
        if (kind_ != Kind::Array && kind_ != Kind::Object) expect(Kind::Array);
        return items_.size();
    }

    /// The field names of an object, in order.
    const std::vector<std::string>& keys() const { return expect(Kind::Object).keys_; }

    /// Sets the field `key` of an object (added at the end if new).
    Value& set(const std::string& key, Value value) {
        expect(Kind::Object);
        for (std::size_t i = 0; i < keys_.size(); ++i) {
            if (keys_[i] == key) {
                items_[i] = std::move(value);
                return *this;
            }
        }
        keys_.push_back(key);
        items_.push_back(std::move(value));
        return *this;
    }

    /// Appends an element to an array.
    Value& push_back(Value value) {
        expect(Kind::Array);
        items_.push_back(std::move(value));
        return *this;
    }

    bool operator==(const Value& other) const {
        if (is_number() && other.is_number()) {
            if (kind_ == Kind::Int && other.kind_ == Kind::Int) return int_ == other.int_;
            return as_double() == other.as_double();
        }
        return kind_ == other.kind_ && bool_ == other.bool_ && string_ == other.string_ &&
               keys_ == other.keys_ && items_ == other.items_;
    }
    bool operator!=(const Value& other) const { return !(*this == other); }

    /// Compact JSON on one line: what a reply needs.
    std::string dump() const {
        std::string out;
        write(out);
        return out;
    }

    static const char* kind_name(Kind kind) {
        switch (kind) {
            case Kind::Null: return "null";
            case Kind::Bool: return "a boolean";
            case Kind::Int: return "an integer";
            case Kind::Double: return "a number";
            case Kind::String: return "a string";
            case Kind::Array: return "an array";
            case Kind::Object: return "an object";
        }
        return "?";
    }

private:
    friend class Parser;

    static const Value& null_value() {
        static const Value null;
        return null;
    }

    const Value& expect(Kind wanted) const {
        if (kind_ != wanted) {
            throw Error(std::string("expected ") + kind_name(wanted) + ", got " + kind_name(kind_) +
                        (kind_ == Kind::Null ? "" : ": " + dump()));
        }
        return *this;
    }

    void write(std::string& out) const {
        switch (kind_) {
            case Kind::Null: out += "null"; break;
            case Kind::Bool: out += bool_ ? "true" : "false"; break;
            case Kind::Int: out += std::to_string(int_); break;
            case Kind::Double: {
                if (!std::isfinite(double_)) throw Error("JSON has no infinity or NaN");
                // The shortest form that reads back as the same number.
                char buffer[32];
                for (int precision = 15; precision <= 17; ++precision) {
                    std::snprintf(buffer, sizeof buffer, "%.*g", precision, double_);
                    if (std::strtod(buffer, nullptr) == double_) break;
                }
                out += buffer;
                break;
            }
            case Kind::String: write_string(string_, out); break;
            case Kind::Array:
                out += '[';
                for (std::size_t i = 0; i < items_.size(); ++i) {
                    if (i > 0) out += ',';
                    items_[i].write(out);
                }
                out += ']';
                break;
            case Kind::Object:
                out += '{';
                for (std::size_t i = 0; i < items_.size(); ++i) {
                    if (i > 0) out += ',';
                    write_string(keys_[i], out);
                    out += ':';
                    items_[i].write(out);
                }
                out += '}';
                break;
        }
    }

    static void write_string(const std::string& text, std::string& out) {
        static const char hex[] = "0123456789abcdef";
        out += '"';
        for (char c : text) {
            auto byte = static_cast<unsigned char>(c);
            switch (c) {
                case '"': out += "\\\""; break;
                case '\\': out += "\\\\"; break;
                case '\n': out += "\\n"; break;
                case '\r': out += "\\r"; break;
                case '\t': out += "\\t"; break;
                default:
                    if (byte < 0x20) {
                        out += "\\u00";
                        out += hex[byte >> 4];
                        out += hex[byte & 15];
                    } else {
                        out += c;  // UTF-8 passes through as it is
                    }
            }
        }
        out += '"';
    }

    Kind kind_ = Kind::Null;
    bool bool_ = false;
    std::int64_t int_ = 0;
    double double_ = 0;
    std::string string_;
    std::vector<std::string> keys_;  // an object's field names
    Array items_;                    // an array's elements, or an object's values
};

/// Reads one JSON text; see json::parse.
class Parser {
public:
    explicit Parser(const std::string& text) : text_(text) {}

    Value parse_document() {
        Value value = parse_value(0);
        skip_space();
        if (at_ < text_.size()) fail("text after the JSON value");
        return value;
    }

private:
    static constexpr int max_depth = 512;

    [[noreturn]] void fail(const std::string& what) const {
        throw Error("not JSON: " + what + " at byte " + std::to_string(at_));
    }

    void skip_space() {
        while (at_ < text_.size() &&
               (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) {
            ++at_;
        }
    }

    void expect_word(const char* word) {
        for (const char* c = word; *c; ++c, ++at_) {
            if (at_ >= text_.size() || text_[at_] != *c) fail(std::string("expected ") + word);
        }
    }

    Value parse_value(int depth) {
        if (depth > max_depth) fail("nested too deep");
        skip_space();
        if (at_ >= text_.size()) fail("unexpected end");
        char c = text_[at_];
        switch (c) {
            case 'n': expect_word("null"); return Value();
            case 't': expect_word("true"); return Value(true);
            case 'f': expect_word("false"); return Value(false);
            case '"': return Value(parse_string());
            case '[': {
                ++at_;
                Value array{Array{}};
                skip_space();
                if (at_ < text_.size() && text_[at_] == ']') {
                    ++at_;
                    return array;
                }
                while (true) {
                    array.items_.push_back(parse_value(depth + 1));
                    skip_space();
                    if (at_ < text_.size() && text_[at_] == ',') {
                        ++at_;
                    } else if (at_ < text_.size() && text_[at_] == ']') {
                        ++at_;
                        return array;
                    } else {
                        fail("expected , or ]");
                    }
                }
            }
            case '{': {
                ++at_;
                Value object = Value::object();
                skip_space();
                if (at_ < text_.size() && text_[at_] == '}') {
                    ++at_;
                    return object;
                }
                while (true) {
                    skip_space();
                    if (at_ >= text_.size() || text_[at_] != '"') fail("expected a field name");
                    std::string key = parse_string();
                    skip_space();
                    if (at_ >= text_.size() || text_[at_] != ':') fail("expected :");
                    ++at_;
                    object.set(key, parse_value(depth + 1));
                    skip_space();
                    if (at_ < text_.size() && text_[at_] == ',') {
                        ++at_;
                    } else if (at_ < text_.size() && text_[at_] == '}') {
                        ++at_;
                        return object;
                    } else {
                        fail("expected , or }");
                    }
                }
            }
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
                fail(std::string("unexpected character '") + c + "'");
        }
    }

    Value parse_number() {
        std::size_t start = at_;
        bool integral = true;
        if (text_[at_] == '-') ++at_;
        auto digits = [&] {
            std::size_t first = at_;
            while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
            if (at_ == first) fail("expected a digit");
        };
        digits();
        if (at_ < text_.size() && text_[at_] == '.') {
            integral = false;
            ++at_;
            digits();
        }
        if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
            integral = false;
            ++at_;
            if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
            digits();
        }
        const char* first = text_.data() + start;
        const char* last = text_.data() + at_;
        if (integral) {
            std::int64_t value = 0;
            auto result = std::from_chars(first, last, value);
            if (result.ec == std::errc() && result.ptr == last) return Value(static_cast<long long>(value));
        }
        // Not an integer that fits: a double (std::from_chars reads
        // doubles only from GCC 11 on; strtod reads the same text).
        return Value(std::strtod(std::string(first, last).c_str(), nullptr));
    }

    static void append_utf8(std::uint32_t code, std::string& out) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    std::uint32_t parse_hex4() {
        if (at_ + 4 > text_.size()) fail("short \\u escape");
        std::uint32_t code = 0;
        for (int i = 0; i < 4; ++i, ++at_) {
            char c = text_[at_];
            code <<= 4;
            if (c >= '0' && c <= '9') code |= c - '0';
            else if (c >= 'a' && c <= 'f') code |= c - 'a' + 10;
            else if (c >= 'A' && c <= 'F') code |= c - 'A' + 10;
            else fail("bad \\u escape");
        }
        return code;
    }

    std::string parse_string() {
        ++at_;  // the opening quote
        std::string out;
        while (true) {
            if (at_ >= text_.size()) fail("unterminated string");
            char c = text_[at_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (at_ >= text_.size()) fail("unterminated string");
            char escape = text_[at_++];
            switch (escape) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    std::uint32_t code = parse_hex4();
                    // A character beyond the first 65,536 comes as two
                    // escapes, a surrogate pair.
                    if (code >= 0xD800 && code < 0xDC00 && at_ + 1 < text_.size() &&
                        text_[at_] == '\\' && text_[at_ + 1] == 'u') {
                        at_ += 2;
                        std::uint32_t low = parse_hex4();
                        if (low >= 0xDC00 && low < 0xE000) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                        } else {
                            append_utf8(0xFFFD, out);
                            code = low;
                        }
                    }
                    append_utf8(code, out);
                    break;
                }
                default: fail(std::string("bad escape \\") + escape);
            }
        }
    }

    const std::string& text_;
    std::size_t at_ = 0;
};

/// Reads one JSON text (a whole line from the referee); throws json::Error
/// if it is not JSON.
inline Value parse(const std::string& text) { return Parser(text).parse_document(); }

}  // namespace json
