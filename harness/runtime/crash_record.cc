#include "harness/runtime/crash_record.h"

#include <signal.h>

#include <cstring>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "harness/core/records_file.h"

namespace gh {
namespace {

constexpr char kSlotOpen[] = "@@GH_";
constexpr char kSlotClose[] = "@@";
constexpr char kSignatureSlot[] = "@@GH_SIG@@";
constexpr size_t kMaxRankText = kMaxCrashFileBytes;
constexpr std::string_view kFramePrefix = "frame ";

// Bounded appender over a caller's buffer; never allocates.
struct Sink {
  char* out;
  size_t capacity;
  size_t length = 0;
  void Put(char c) {
    if (length < capacity) out[length++] = c;
  }
  void Put(const char* text, size_t n) {
    for (size_t i = 0; i < n; ++i) Put(text[i]);
  }
  void Put(const char* text) { Put(text, std::strlen(text)); }
  // Inside a JSON string: quote and backslash escaped, control characters replaced.
  void PutEscaped(const char* text, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const char c = text[i];
      if (c == '"' || c == '\\') {
        Put('\\');
        Put(c);
      } else if (static_cast<unsigned char>(c) < 0x20) {
        Put('?');
      } else {
        Put(c);
      }
    }
  }
  void PutInt(int value) {
    char digits[12];
    int n = 0;
    unsigned v = value < 0 ? 0u : static_cast<unsigned>(value);
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0) Put(digits[--n]);
  }
};

std::string_view WholeText(const CrashRankText& rank) {
  return std::string_view(rank.text, rank.length < kMaxRankText ? rank.length : kMaxRankText);
}

// The crash file's first line: "SIGSEGV in step 'exchange'".
std::string_view HeadLine(const CrashRankText& rank) {
  std::string_view text = WholeText(rank);
  return text.substr(0, text.find('\n'));
}

// Splits "SIGSEGV in step 'exchange'" into the signal name and the step.
void SplitRankText(const CrashRankText& rank, std::string_view& signal, std::string_view& step) {
  std::string_view text = HeadLine(rank);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  const size_t space = text.find(' ');
  signal = text.substr(0, space);
  step = {};
  constexpr std::string_view kStepIntro = " in step '";
  const size_t intro = text.find(kStepIntro);
  if (intro != std::string_view::npos) {
    step = text.substr(intro + kStepIntro.size());
    if (!step.empty() && step.back() == '\'') step.remove_suffix(1);
  }
}

bool HasText(const CrashRankText& rank) { return rank.text != nullptr && rank.length > 0; }

// Calls `each` with every "frame " line's function, innermost first; returns how many.
template <typename Each>
int ForEachFrame(const CrashRankText& rank, Each each) {
  std::string_view rest = WholeText(rank);
  int frames = 0;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    // A last line the read limit cut is not a whole frame.
    if (end == std::string_view::npos && rank.length >= kMaxRankText) break;
    if (line.substr(0, kFramePrefix.size()) != kFramePrefix) continue;
    each(line.substr(kFramePrefix.size()));
    ++frames;
  }
  return frames;
}

// The JSON text of a stack slot: ["f", "g"] or [].
void PutStack(Sink& sink, const CrashRankText& rank) {
  sink.Put('[');
  if (HasText(rank)) {
    bool first = true;
    ForEachFrame(rank, [&](std::string_view function) {
      if (!first) sink.Put(',');
      first = false;
      sink.Put('"');
      sink.PutEscaped(function.data(), function.size());
      sink.Put('"');
    });
  }
  sink.Put(']');
}

void PutStackNote(Sink& sink, const CrashRankText& rank) {
  if (!HasText(rank)) {
    sink.Put("no stack: the rank left no crash report");
  } else if (ForEachFrame(rank, [](std::string_view) {}) == 0) {
    sink.Put("no stack: the crash handler found no frames");
  } else {
    sink.Put("the crashing thread, from its crash handler");
  }
}

// Parses the decimal rank after a slot prefix such as "R" / "S"; -1 when malformed.
int ParseSlotRank(std::string_view digits) {
  if (digits.empty() || digits.size() > 9) return -1;
  int value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

std::string RenderCrashRecordTemplate(Record record) {
  std::vector<RankOutcome> ranks(record.nranks);
  for (int r = 0; r < record.nranks; ++r) {
    RankOutcome& rank = ranks[r];
    if (r < static_cast<int>(record.result.ranks.size())) rank = record.result.ranks[r];
    rank.rank = r;
    rank.outcome = Outcome::kCrash;
    rank.signature = absl::StrCat(kSlotOpen, "R", r, kSlotClose);
    rank.step = absl::StrCat(kSlotOpen, "S", r, kSlotClose);
    rank.stack = {absl::StrCat(kSlotOpen, "K", r, kSlotClose)};
    rank.stack_note = absl::StrCat(kSlotOpen, "N", r, kSlotClose);
    rank.mismatch.reset();
    rank.metrics.clear();
  }
  record.result.outcome = Outcome::kCrash;
  record.result.signature = kSignatureSlot;
  record.result.ranks = std::move(ranks);
  record.result.metrics.clear();
  record.matched = MeetsExpectation(record.expected, Outcome::kCrash, "");
  // A crash expectation with a signature regex cannot be judged before the signature exists;
  // the template says unmatched then, the conservative answer.
  if (record.expected.signature_regex.has_value()) record.matched = false;
  // A stack slot stands for the whole array: ["@@GH_K0@@"] becomes @@GH_K0@@.
  std::string line = RecordJsonLine(record);
  for (int r = 0; r < record.nranks; ++r) {
    const std::string slot = absl::StrCat(kSlotOpen, "K", r, kSlotClose);
    const std::string quoted = absl::StrCat("[\"", slot, "\"]");
    if (const size_t at = line.find(quoted); at != std::string::npos) {
      line.replace(at, quoted.size(), slot);
    }
  }
  return line;
}

size_t CrashRecordCapacity(size_t template_length, int nranks) {
  // Per rank: its signature, step and frames (escaped, at most doubled; a frame's quotes and
  // comma add at most 3 bytes to its "frame " prefix of 6), its stack note, and its entry in
  // the point's signature.
  return template_length + static_cast<size_t>(nranks) * (kMaxRankText * 2 * 4 + 128) + 256;
}

size_t FillCrashRecord(const char* tmpl, size_t tmpl_length, const CrashRankText* ranks,
                       int nranks, const char* root_signal, char* out, size_t capacity) {
  Sink sink{out, capacity};
  std::string_view rest(tmpl, tmpl_length);
  while (!rest.empty()) {
    const size_t open = rest.find(kSlotOpen);
    if (open == std::string_view::npos) {
      sink.Put(rest.data(), rest.size());
      break;
    }
    sink.Put(rest.data(), open);
    rest.remove_prefix(open + std::strlen(kSlotOpen));
    const size_t close = rest.find(kSlotClose);
    if (close == std::string_view::npos) {  // not a slot after all: keep the text
      sink.Put(kSlotOpen);
      continue;
    }
    const std::string_view slot = rest.substr(0, close);
    rest.remove_prefix(close + std::strlen(kSlotClose));
    if (slot == "SIG") {
      bool any = false;
      for (int r = 0; r < nranks; ++r) {
        if (!HasText(ranks[r])) continue;
        std::string_view signal, step;
        SplitRankText(ranks[r], signal, step);
        if (any) sink.Put("; ");
        any = true;
        sink.PutEscaped(signal.data(), signal.size());
        sink.Put(" on rank ");
        sink.PutInt(r);
        sink.Put(" in step '");
        sink.PutEscaped(step.data(), step.size());
        sink.Put('\'');
      }
      if (!any) {
        sink.Put("killed by ");
        sink.Put(root_signal);
      }
      continue;
    }
    const int r = ParseSlotRank(slot.substr(1));
    if ((slot[0] != 'R' && slot[0] != 'S' && slot[0] != 'K' && slot[0] != 'N') || r < 0 ||
        r >= nranks) {
      continue;
    }
    if (slot[0] == 'K') {
      PutStack(sink, ranks[r]);
      continue;
    }
    if (slot[0] == 'N') {
      PutStackNote(sink, ranks[r]);
      continue;
    }
    std::string_view signal, step;
    if (HasText(ranks[r])) SplitRankText(ranks[r], signal, step);
    if (slot[0] == 'S') {
      sink.PutEscaped(step.data(), step.size());
    } else if (HasText(ranks[r])) {
      std::string_view text = HeadLine(ranks[r]);
      while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
      sink.PutEscaped(text.data(), text.size());
    } else {
      sink.Put("no crash report (");
      sink.Put(root_signal);
      sink.Put(" ended the job)");
    }
  }
  return sink.length;
}

}  // namespace gh
