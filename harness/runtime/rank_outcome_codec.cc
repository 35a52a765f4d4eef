#include "harness/runtime/rank_outcome_codec.h"

#include <cstdint>
#include <climits>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace gh {
namespace {

constexpr char kMagic[4] = {'G', 'H', 'R', 'O'};
constexpr uint8_t kVersion = 1;
// Open the optional sections after the metrics: every metric's samples (timed points), then
// the stack.
constexpr uint8_t kSamplesTag = 'P';
constexpr uint8_t kStackTag = 'S';

class Writer {
 public:
  void Bytes(const void* data, size_t n) { out_.append(static_cast<const char*>(data), n); }
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void F64(double v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(bits));
    U64(bits);
  }
  void Str(const std::string& s) {
    U64(s.size());
    out_.append(s);
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(std::string_view in, size_t start) : in_(in), pos_(start) {}
  bool U8(const char* what, uint8_t* v) {
    if (!Need(1, what)) return false;
    *v = static_cast<uint8_t>(in_[pos_++]);
    return true;
  }
  bool U64(const char* what, uint64_t* v) {
    if (!Need(8, what)) return false;
    uint64_t out = 0;
    for (int i = 0; i < 8; ++i) out |= uint64_t{static_cast<uint8_t>(in_[pos_ + i])} << (8 * i);
    pos_ += 8;
    *v = out;
    return true;
  }
  bool I64(const char* what, int64_t* v) {
    uint64_t u = 0;
    if (!U64(what, &u)) return false;
    *v = static_cast<int64_t>(u);
    return true;
  }
  bool Int(const char* what, int* v) {
    int64_t wide = 0;
    if (!I64(what, &wide)) return false;
    if (wide < INT32_MIN || wide > INT32_MAX) return Fail(absl::StrCat(what, " out of range"));
    *v = static_cast<int>(wide);
    return true;
  }
  bool F64(const char* what, double* v) {
    uint64_t bits = 0;
    if (!U64(what, &bits)) return false;
    std::memcpy(v, &bits, sizeof(bits));
    return true;
  }
  bool Str(const char* what, std::string* s) {
    uint64_t n = 0;
    if (!U64(what, &n)) return false;
    if (n > in_.size() - pos_) {
      return Fail(absl::StrCat(what, ": length ", n, " runs past the end (", in_.size() - pos_,
                               " bytes left)"));
    }
    s->assign(in_.data() + pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return true;
  }
  bool Fail(std::string why) {
    error_ = std::move(why);
    return false;
  }
  bool AtEnd() const { return pos_ == in_.size(); }
  size_t pos() const { return pos_; }
  const std::string& error() const { return error_; }

 private:
  bool Need(size_t n, const char* what) {
    if (in_.size() - pos_ >= n) return true;
    return Fail(absl::StrCat("truncated at byte ", pos_, " reading ", what));
  }
  std::string_view in_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

std::string EncodeRankOutcome(const RankOutcome& outcome) {
  Writer w;
  w.Bytes(kMagic, sizeof(kMagic));
  w.U8(kVersion);
  w.I64(outcome.rank);
  w.I64(outcome.device);
  w.U8(static_cast<uint8_t>(outcome.outcome));
  w.Str(outcome.host);
  w.Str(outcome.signature);
  w.Str(outcome.step);
  w.Str(outcome.output_tail);
  w.U8(outcome.mismatch ? 1 : 0);
  if (outcome.mismatch) {
    w.I64(outcome.mismatch->wrong_elements);
    w.I64(outcome.mismatch->checked_elements);
    w.I64(outcome.mismatch->first_index);
    w.Str(outcome.mismatch->expected);
    w.Str(outcome.mismatch->actual);
  }
  w.U64(outcome.metrics.size());
  for (const Metric& m : outcome.metrics) {
    w.Str(m.name);
    w.F64(m.value);
    w.Str(m.unit);
  }
  // Present only when a metric has samples: per metric, its count and values.
  bool any_samples = false;
  for (const Metric& m : outcome.metrics) any_samples = any_samples || !m.samples.empty();
  if (any_samples) {
    w.U8(kSamplesTag);
    for (const Metric& m : outcome.metrics) {
      w.U64(m.samples.size());
      for (double v : m.samples) w.F64(v);
    }
  }
  // An optional tail, present only when the rank has a stack or a note about it (timeouts,
  // crashes): the common outcome stays as short as before.
  if (!outcome.stack.empty() || !outcome.stack_note.empty()) {
    w.U8(kStackTag);
    w.U64(outcome.stack.size());
    for (const std::string& frame : outcome.stack) w.Str(frame);
    w.Str(outcome.stack_note);
  }
  return w.Take();
}

absl::StatusOr<RankOutcome> DecodeRankOutcome(std::string_view bytes) {
  auto error = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("rank outcome: ", why));
  };
  if (bytes.size() < sizeof(kMagic) + 1 || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return error(absl::StrCat("not an encoded outcome (", bytes.size(), " bytes)"));
  }
  if (static_cast<uint8_t>(bytes[sizeof(kMagic)]) != kVersion) {
    return error(absl::StrCat("encoding version ",
                              static_cast<int>(static_cast<uint8_t>(bytes[sizeof(kMagic)])),
                              ", this gpuharness reads ", static_cast<int>(kVersion)));
  }
  Reader r(bytes, sizeof(kMagic) + 1);
  RankOutcome out;
  uint8_t code = 0, has_mismatch = 0;
  bool ok = r.Int("rank", &out.rank) && r.Int("device", &out.device) && r.U8("outcome", &code);
  if (ok && code > static_cast<uint8_t>(Outcome::kCrash)) {
    return error(absl::StrCat("unknown outcome code ", static_cast<int>(code)));
  }
  out.outcome = static_cast<Outcome>(code);
  ok = ok && r.Str("host", &out.host) && r.Str("signature", &out.signature) &&
       r.Str("step", &out.step) && r.Str("output_tail", &out.output_tail) &&
       r.U8("mismatch flag", &has_mismatch);
  if (ok && has_mismatch != 0) {
    Mismatch m;
    ok = r.I64("wrong_elements", &m.wrong_elements) &&
         r.I64("checked_elements", &m.checked_elements) && r.I64("first_index", &m.first_index) &&
         r.Str("mismatch expected", &m.expected) && r.Str("mismatch actual", &m.actual);
    out.mismatch = std::move(m);
  }
  uint64_t metrics = 0;
  ok = ok && r.U64("metric count", &metrics);
  for (uint64_t i = 0; ok && i < metrics; ++i) {
    Metric m;
    ok = r.Str("metric name", &m.name) && r.F64("metric value", &m.value) &&
         r.Str("metric unit", &m.unit);
    out.metrics.push_back(std::move(m));
  }
  uint64_t frames = 0;
  if (ok && r.AtEnd()) return out;
  size_t tail = r.pos();
  uint8_t tag = 0;
  ok = ok && r.U8("section tag", &tag);
  if (ok && tag == kSamplesTag) {
    for (Metric& m : out.metrics) {
      uint64_t count = 0;
      ok = ok && r.U64("sample count", &count);
      for (uint64_t i = 0; ok && i < count; ++i) {
        double v = 0;
        ok = r.F64("sample", &v);
        m.samples.push_back(v);
      }
    }
    if (ok && r.AtEnd()) return out;
    tail = r.pos();
    ok = ok && r.U8("stack tag", &tag);
  }
  if (ok && tag != kStackTag) return error(absl::StrCat("trailing bytes after byte ", tail));
  ok = ok && r.U64("stack frame count", &frames);
  for (uint64_t i = 0; ok && i < frames; ++i) {
    std::string frame;
    ok = r.Str("stack frame", &frame);
    out.stack.push_back(std::move(frame));
  }
  ok = ok && r.Str("stack note", &out.stack_note);
  if (!ok) return error(r.error());
  if (!r.AtEnd()) return error(absl::StrCat("trailing bytes after byte ", r.pos()));
  return out;
}

RankOutcome DecodeGatheredOutcome(int rank, std::string_view bytes) {
  absl::StatusOr<RankOutcome> decoded = DecodeRankOutcome(bytes);
  if (decoded.ok()) return *std::move(decoded);
  RankOutcome broken = RankOutcome::Error(std::string(decoded.status().message()), "collect results");
  broken.rank = rank;
  return broken;
}

}  // namespace gh
