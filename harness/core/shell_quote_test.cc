#include "harness/core/shell_quote.h"

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"

namespace gh {
namespace {

namespace fs = std::filesystem;

// Strings that run a command, or end a comment or a quote, when spliced in raw. Each tries to
// create MARKER.
std::vector<std::string> HostileStrings(const std::string& marker) {
  return {
      absl::StrCat("$(touch ", marker, ")"),
      absl::StrCat("`touch ", marker, "`"),
      absl::StrCat("\\$(touch ", marker, ")"),
      absl::StrCat("'; touch ", marker, "; '"),
      absl::StrCat("\"; touch ", marker, "; \""),
      absl::StrCat("a\ntouch ", marker, "\n"),
      absl::StrCat("x; touch ", marker),
      absl::StrCat("x && touch ", marker, " #"),
      absl::StrCat("${IFS}$(touch${IFS}", marker, ")"),
      absl::StrCat("!!\\'\\\\' \r\t touch ", marker),
      "", "'", "''", "\\", "-n", "*", "~", "a b",
  };
}

std::string Scratch(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) / "shell_quote_test" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// Runs `script` under bash in `dir`; its exit status.
int RunBash(const std::string& dir, const std::string& script) {
  const std::string path = dir + "/script.sh";
  EXPECT_TRUE(WriteFileAtomically(path, script).ok());
  return std::system(absl::StrCat("cd ", ShellQuote(dir), " && bash ", ShellQuote(path), " >/dev/null 2>&1").c_str());
}

TEST(ShellQuote, PlainWordsStayBare) {
  EXPECT_EQ(ShellQuote("abc-1.2_x/y=z:w,v+u@t%s"), "abc-1.2_x/y=z:w,v+u@t%s");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("a b"), "'a b'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuoteJoin({"echo", "a b", "$x"}), "echo 'a b' '$x'");
}

TEST(ShellQuote, BashReadsBackEveryHostileStringAndRunsNothing) {
  const std::string dir = Scratch("roundtrip");
  const std::string marker = dir + "/ran";
  const std::vector<std::string> hostile = HostileStrings(marker);
  for (size_t i = 0; i < hostile.size(); ++i) {
    SCOPED_TRACE(hostile[i]);
    const std::string out = absl::StrCat(dir, "/out", i);
    ASSERT_EQ(RunBash(dir, absl::StrCat("printf '%s' ", ShellQuote(hostile[i]), " > ", ShellQuote(out), "\n")), 0);
    absl::StatusOr<std::string> got = ReadFileToString(out);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, hostile[i]);
    EXPECT_FALSE(fs::exists(marker));
  }
}

TEST(ShellQuote, ACommentCannotBeEndedByANewline) {
  EXPECT_EQ(ShellComment("fail: a\nb\rc\x1b[31m"), "# fail: a\\nb\\rc\\x1b[31m\n");
  const std::string dir = Scratch("comment");
  const std::string marker = dir + "/ran";
  std::string script;
  for (const std::string& s : HostileStrings(marker)) script += ShellComment(s);
  ASSERT_EQ(RunBash(dir, script + "exit 0\n"), 0);
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_EQ(std::count(script.begin(), script.end(), '\n'), static_cast<long>(HostileStrings(marker).size()));
}

TEST(ShellQuote, PrintLinePrintsTheTextAsItIs) {
  const std::string dir = Scratch("print");
  const std::string marker = dir + "/ran";
  const std::vector<std::string> hostile = HostileStrings(marker);
  std::string script, expected;
  for (const std::string& s : hostile) {
    script += ShellPrintLine(s) + " >> " + ShellQuote(dir + "/printed") + "\n";
    expected += s + "\n";
  }
  ASSERT_EQ(RunBash(dir, script), 0);
  EXPECT_FALSE(fs::exists(marker));
  absl::StatusOr<std::string> got = ReadFileToString(dir + "/printed");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, expected);
}

// Runs `script` under /bin/sh (as set-ups run) in `dir`; its exit status.
int RunSh(const std::string& dir, const std::string& script) {
  const std::string path = dir + "/script.sh";
  EXPECT_TRUE(WriteFileAtomically(path, script).ok());
  return std::system(absl::StrCat("cd ", ShellQuote(dir), " && sh ", ShellQuote(path), " >/dev/null 2>&1").c_str());
}

TEST(ShellSubstitute, EveryContextReadsBackTheValueAndRunsNothing) {
  const std::string dir = Scratch("substitute");
  const std::string marker = dir + "/ran";
  // A script with {v} in each place it can stand, and what it leaves in `out` for value V.
  struct Place {
    std::string script;
    std::string (*expected)(const std::string& v);
  };
  auto plain = [](const std::string& v) { return v + "\n"; };
  const std::vector<Place> places = {
      {"printf '%s\\n' {v} > out\n", plain},
      {"printf '%s\\n' \"{v}\" > out\n", plain},
      {"printf '%s\\n' 'pre-{v}-post' > out\n", [](const std::string& v) { return "pre-" + v + "-post\n"; }},
      {"printf '%s\\n' \"x=$(printf '%s' \"{v}\")\" > out\n", [](const std::string& v) { return "x=" + v + "\n"; }},
      {"x=`printf '%s' {v}`; printf '%s\\n' \"$x\" > out\n", plain},
      {"cat > out <<EOF\n{v}\nEOF\n", plain},
      {"cat > out <<-'EOF'\n\t{v}\n\tEOF\n", plain},
      {"# set up {v} (it's quoted)\nprintf '%s\\n' \"{v}\" > out\n", plain},
  };
  for (const std::string& v : HostileStrings(marker)) {
    if (v.find('\n') != std::string::npos) continue;  // labels never hold line breaks (name_rules.h)
    for (const Place& place : places) {
      SCOPED_TRACE(absl::StrCat(place.script, " with ", v));
      fs::remove(dir + "/out");
      const std::string script = ShellSubstitute(place.script, {{"{v}", v}});
      ASSERT_EQ(RunSh(dir, script), 0) << script;
      absl::StatusOr<std::string> got = ReadFileToString(dir + "/out");
      ASSERT_TRUE(got.ok()) << script;
      EXPECT_EQ(*got, place.expected(v)) << script;
      EXPECT_FALSE(fs::exists(marker)) << script;
    }
  }
}

TEST(ShellSubstitute, PlainValuesGoInAsTheyAre) {
  EXPECT_EQ(ShellSubstitute("pip install \"jax=={version}\" # {version}", {{"{version}", "0.4.36"}}),
            "pip install \"jax==0.4.36\" # 0.4.36");
  EXPECT_EQ(ShellSubstitute("git checkout {good}..{bad}", {{"{good}", "v1"}, {"{bad}", "v2 x"}}),
            "git checkout v1..'v2 x'");
  EXPECT_EQ(ShellSubstitute("echo \"{v}\"", {{"{v}", "a$(b)"}}), "echo \"\"'a$(b)'\"\"");
}

}  // namespace
}  // namespace gh
