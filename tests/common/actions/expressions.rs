//! The expressions of the workflows (`${{ ... }}`, `if:`): read into
//! tokens and evaluated by a small recursive parser over a job's [`Scope`],
//! with the operators the workflows use (`||`, `&&`, `==`, `!=`, calls and
//! parentheses) and Actions' truthiness.

use serde_json::{Value, json};

use super::Scope;

/// Whether Actions takes `value` as true.
pub(super) fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::String(text) => !text.is_empty(),
        Value::Number(number) => number.as_f64() != Some(0.0),
        _ => true,
    }
}

/// The value of `expression` (without its `${{ }}`) in `scope`.
pub(super) fn evaluate(expression: &str, scope: &Scope<'_>) -> Value {
    let tokens = tokens(expression);
    let mut parser = Parser { tokens: &tokens, at: 0, scope };
    let value = parser.or();
    assert_eq!(parser.at, tokens.len(), "cannot evaluate `{expression}`");
    value
}

/// `expression` cut into tokens.
fn tokens(expression: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = expression.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        if c.is_whitespace() {
            at += 1;
        } else if c == '\'' {
            let end =
                chars[at + 1..].iter().position(|&d| d == '\'').expect("a closed string") + at + 1;
            tokens.push(chars[at..=end].iter().collect());
            at = end + 1;
        } else if "(),".contains(c) {
            tokens.push(c.to_string());
            at += 1;
        } else if "=!&|".contains(c) {
            tokens.push(chars[at..at + 2].iter().collect());
            at += 2;
        } else {
            let start = at;
            while at < chars.len() && (chars[at].is_alphanumeric() || "._-*/".contains(chars[at])) {
                at += 1;
            }
            assert!(at > start, "cannot read `{expression}` at {c}");
            tokens.push(chars[start..at].iter().collect());
        }
    }
    tokens
}

struct Parser<'a> {
    tokens: &'a [String],
    at: usize,
    scope: &'a Scope<'a>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.at).map(String::as_str)
    }

    fn or(&mut self) -> Value {
        let mut value = self.and();
        while self.peek() == Some("||") {
            self.at += 1;
            let right = self.and();
            if !truthy(&value) {
                value = right;
            }
        }
        value
    }

    fn and(&mut self) -> Value {
        let mut value = self.comparison();
        while self.peek() == Some("&&") {
            self.at += 1;
            let right = self.comparison();
            if truthy(&value) {
                value = right;
            }
        }
        value
    }

    fn comparison(&mut self) -> Value {
        let left = self.primary();
        match self.peek() {
            Some(operator @ ("==" | "!=")) => {
                let equal = operator == "==";
                self.at += 1;
                let right = self.primary();
                let text = |value: &Value| match value {
                    Value::String(text) => text.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                };
                json!((text(&left) == text(&right)) == equal)
            }
            _ => left,
        }
    }

    fn primary(&mut self) -> Value {
        let token = self.tokens[self.at].clone();
        self.at += 1;
        if token == "(" {
            let value = self.or();
            assert_eq!(self.peek(), Some(")"));
            self.at += 1;
            return value;
        }
        if let Some(text) = token.strip_prefix('\'') {
            return json!(text.strip_suffix('\'').unwrap());
        }
        if self.peek() == Some("(") {
            self.at += 1;
            let mut arguments = Vec::new();
            while self.peek() != Some(")") {
                arguments.push(self.or());
                if self.peek() == Some(",") {
                    self.at += 1;
                }
            }
            self.at += 1;
            return self.scope.call(&token, arguments);
        }
        if let Ok(number) = token.parse::<i64>() {
            return json!(number);
        }
        self.scope.context(&token)
    }
}
