#include "harness/core/point_filter.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/core/glob.h"

namespace gh {
namespace {

struct Token {
  enum Kind { kGlob, kAnd, kOr, kNot, kOpen, kClose, kEnd } kind;
  std::string_view text;
  size_t column;  // 1-based, for messages
};

std::vector<Token> Tokenize(std::string_view filter) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < filter.size()) {
    const char c = filter[i];
    if (c == ' ' || c == '\t') {
      ++i;
    } else if (c == '(' || c == ')') {
      tokens.push_back({c == '(' ? Token::kOpen : Token::kClose, filter.substr(i, 1), i + 1});
      ++i;
    } else {
      size_t end = i;
      while (end < filter.size() && filter[end] != ' ' && filter[end] != '\t' && filter[end] != '(' &&
             filter[end] != ')') {
        ++end;
      }
      const std::string_view word = filter.substr(i, end - i);
      const Token::Kind kind = word == "and" ? Token::kAnd
                               : word == "or" ? Token::kOr
                               : word == "not" ? Token::kNot
                                               : Token::kGlob;
      tokens.push_back({kind, word, i + 1});
      i = end;
    }
  }
  tokens.push_back({Token::kEnd, "", filter.size() + 1});
  return tokens;
}

// A recursive-descent reader that evaluates as it parses: or := and ('or' and)*,
// and := unary ('and' unary)*, unary := 'not' unary | '(' or ')' | GLOB.
class Reader {
 public:
  Reader(std::vector<Token> tokens, std::string_view name) : tokens_(std::move(tokens)), name_(name) {}

  absl::Status Read(bool* matched) {
    bool value = false;
    absl::Status s = Or(&value);
    if (s.ok() && Peek().kind != Token::kEnd) s = Unexpected("'or', 'and' or the end");
    if (s.ok()) *matched = value;
    return s;
  }

 private:
  const Token& Peek() const { return tokens_[at_]; }
  const Token& Next() { return tokens_[at_++]; }

  absl::Status Unexpected(std::string_view wanted) const {
    const Token& t = Peek();
    if (t.kind == Token::kEnd) return absl::InvalidArgumentError(absl::StrCat("expected ", std::string(wanted), " at the end"));
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", std::string(wanted), " at column ", t.column, ", found '", std::string(t.text), "'"));
  }

  absl::Status Or(bool* value) { return Chain(Token::kOr, &Reader::And, value); }
  absl::Status And(bool* value) { return Chain(Token::kAnd, &Reader::Unary, value); }

  // operand (op operand)*, folded with || for 'or' and && for 'and'.
  absl::Status Chain(Token::Kind op, absl::Status (Reader::*operand)(bool*), bool* value) {
    absl::Status s = (this->*operand)(value);
    while (s.ok() && Peek().kind == op) {
      Next();
      bool right = false;
      s = (this->*operand)(&right);
      *value = op == Token::kOr ? (*value || right) : (*value && right);
    }
    return s;
  }

  absl::Status Unary(bool* value) {
    switch (Peek().kind) {
      case Token::kNot: {
        Next();
        absl::Status s = Unary(value);
        *value = !*value;
        return s;
      }
      case Token::kOpen: {
        const size_t open = Next().column;
        absl::Status s = Or(value);
        if (!s.ok()) return s;
        if (Peek().kind != Token::kClose) {
          return absl::InvalidArgumentError(absl::StrCat("the '(' at column ", open, " is never closed"));
        }
        Next();
        return absl::OkStatus();
      }
      case Token::kGlob:
        *value = GlobMatches(Next().text, name_);
        return absl::OkStatus();
      default:
        return Unexpected("a glob, 'not' or '('");
    }
  }

  std::vector<Token> tokens_;
  std::string_view name_;
  size_t at_ = 0;
};

}  // namespace

absl::Status CheckPointFilter(std::string_view filter) {
  bool ignored = false;
  return filter.empty() ? absl::OkStatus() : Reader(Tokenize(filter), "").Read(&ignored);
}

bool PointNameMatches(std::string_view filter, std::string_view point_name) {
  if (filter.empty()) return true;
  bool matched = false;
  return Reader(Tokenize(filter), point_name).Read(&matched).ok() && matched;
}

}  // namespace gh
