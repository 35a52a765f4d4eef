#include "harness/history/history_db.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "harness/core/file_util.h"
#include "harness/core/status_macros.h"

namespace gh {
namespace {

constexpr int kBusyTimeoutMs = 60000;  // two nights ingesting at once wait for each other

// A file that exists and is not empty must start with SQLite's magic header.
absl::Status CheckSqliteHeader(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read the history database"));
  char header[16] = {};
  in.read(header, sizeof header);
  const std::streamsize got = in.gcount();
  if (got == 0) return absl::OkStatus();  // an empty file is an empty database
  if (got < 16 || std::string(header, 16) != std::string("SQLite format 3\0", 16)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a gpuharness history database (not an SQLite file)"));
  }
  return absl::OkStatus();
}

// SQLite's file: URI of a path: '?', '#' and '%' percent-encoded.
std::string FileUri(const std::string& path, const std::string& query) {
  std::string uri = "file:";
  for (char c : std::filesystem::absolute(path).string()) {
    if (c == '?' || c == '#' || c == '%') {
      absl::StrAppendFormat(&uri, "%%%02X", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  return absl::StrCat(uri, "?", query);
}

}  // namespace

const std::vector<std::string>& HistoryMigrations() {
  static const std::vector<std::string> kMigrations = {
      // 1: one row per ingested results directory, one per record (point × trial).
      "CREATE TABLE sources("
      "  id INTEGER PRIMARY KEY, night TEXT NOT NULL, kind TEXT NOT NULL, matrix TEXT NOT NULL,"
      "  path TEXT NOT NULL, ingested_at TEXT NOT NULL, UNIQUE(night, kind, path));"
      "CREATE TABLE results("
      "  id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL REFERENCES sources(id),"
      "  night TEXT NOT NULL, kind TEXT NOT NULL, matrix TEXT NOT NULL, cell TEXT NOT NULL,"
      "  point TEXT NOT NULL, version TEXT NOT NULL, trial INTEGER NOT NULL,"
      "  outcome TEXT NOT NULL, signature TEXT NOT NULL, matched INTEGER NOT NULL,"
      "  started_at TEXT NOT NULL, duration_s REAL NOT NULL,"
      "  UNIQUE(night, kind, matrix, cell, point, version, trial, started_at));",
      // 2: metrics of each record; an index for per-point queries.
      "CREATE TABLE metrics("
      "  result_id INTEGER NOT NULL REFERENCES results(id), name TEXT NOT NULL,"
      "  value REAL NOT NULL, unit TEXT NOT NULL, PRIMARY KEY(result_id, name));"
      "CREATE INDEX results_by_point ON results(matrix, cell, point, night);",
      // 3: the outcome each record expected, so an expected crash reads differently from an
      // unexpected one ('' for rows ingested before: only `matched` is known of them).
      "ALTER TABLE results ADD COLUMN expected TEXT NOT NULL DEFAULT '';"
      "CREATE INDEX results_by_source ON results(source_id);",
  };
  return kMigrations;
}

absl::StatusOr<HistoryDb> HistoryDb::Open(const std::string& path, Mode mode, int target_version) {
  // Two ingests creating one database at once can meet a lock SQLite reports busy without
  // waiting (switching to WAL, or a read lock that must not block a writer): retry the whole
  // open, with a growing pause, within the same budget the busy handler has.
  const absl::Time deadline = absl::Now() + absl::Milliseconds(kBusyTimeoutMs);
  absl::Duration pause = absl::Milliseconds(10);
  while (true) {
    absl::StatusOr<HistoryDb> db = OpenOnce(path, mode, target_version);
    if (db.ok() || !absl::IsUnavailable(db.status()) || absl::Now() + pause > deadline) return db;
    absl::SleepFor(pause);
    pause = std::min(pause * 2, absl::Milliseconds(500));
  }
}

absl::StatusOr<HistoryDb> HistoryDb::Connect(const std::string& path, int flags, const std::string& uri) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(uri.empty() ? path.c_str() : uri.c_str(), &raw,
                                 flags | SQLITE_OPEN_FULLMUTEX | (uri.empty() ? 0 : SQLITE_OPEN_URI), nullptr);
  HistoryDb db(path, raw);
  if (rc != SQLITE_OK) return db.Error("cannot open the history database");
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  return db;
}

absl::StatusOr<HistoryDb> HistoryDb::OpenForQuery(const std::string& path, int target_version) {
  // A WAL database is read through its -shm file, which SQLite creates beside it when missing.
  // A reader that may not write the database must not leave one behind (it would be the
  // reader's, and the owner's next ingest could not write it), and one that may not write the
  // directory cannot: such readers read the file as it stands. One that can, or that finds the
  // files there (a writer at work), reads through them.
  std::error_code ec;
  const bool shared = ::access(path.c_str(), W_OK) == 0 || std::filesystem::exists(path + "-shm", ec) ||
                      std::filesystem::exists(path + "-wal", ec);
  const std::string immutable = FileUri(path, "immutable=1");
  GH_ASSIGN_OR_RETURN(HistoryDb db, Connect(path, SQLITE_OPEN_READONLY, shared ? "" : immutable));
  absl::Status ours = db.CheckOurs(target_version);
  if (shared && absl::IsPermissionDenied(ours)) {
    GH_ASSIGN_OR_RETURN(db, Connect(path, SQLITE_OPEN_READONLY, immutable));
    ours = db.CheckOurs(target_version);
  }
  GH_RETURN_IF_ERROR(ours);
  GH_ASSIGN_OR_RETURN(int version, db.SchemaVersion());
  if (version == target_version) return db;
  // An older schema: upgrade it as an ingest would, then query.
  absl::StatusOr<HistoryDb> upgraded = OpenOnce(path, Mode::kCreate, target_version);
  if (!upgraded.ok() && absl::IsPermissionDenied(upgraded.status())) {
    return absl::PermissionDeniedError(absl::StrCat(
        path, ": history schema version ", version, " must be upgraded to ", target_version,
        " before this gpuharness reads it, which needs write access (", upgraded.status().message(), ")"));
  }
  return upgraded;
}

absl::StatusOr<HistoryDb> HistoryDb::OpenOnce(const std::string& path, Mode mode, int target_version) {
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (!exists && mode == Mode::kQuery) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": no history database (`gpuharness history ingest` creates it)"));
  }
  if (exists) {
    GH_RETURN_IF_ERROR(CheckSqliteHeader(path));
  } else {
    const std::string parent = std::filesystem::path(path).parent_path().string();
    if (!parent.empty()) GH_RETURN_IF_ERROR(MakeDirectories(parent));
  }
  if (mode == Mode::kQuery) return OpenForQuery(path, target_version);
  GH_ASSIGN_OR_RETURN(HistoryDb db, Connect(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE));
  GH_RETURN_IF_ERROR(db.CheckOurs(target_version));
  // WAL: readers never block the writer, and a killed writer leaves the file consistent.
  GH_RETURN_IF_ERROR(db.Exec("PRAGMA journal_mode=WAL"));
  GH_RETURN_IF_ERROR(db.Exec("PRAGMA foreign_keys=ON"));
  GH_RETURN_IF_ERROR(db.Migrate(target_version));
  return db;
}

// Ours: application_id set, or a brand-new empty file. Damage shows in quick_check.
absl::Status HistoryDb::CheckOurs(int target_version) {
  auto foreign = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_, ": not a gpuharness history database (", why, ")"));
  };
  GH_ASSIGN_OR_RETURN(Statement check, Statement::Prepare(*this, "PRAGMA quick_check"));
  GH_ASSIGN_OR_RETURN(bool row, check.Step());
  if (!row || check.Text(0) != "ok") {
    return foreign(absl::StrCat("damaged or truncated: ", row ? check.Text(0) : "no answer"));
  }
  GH_ASSIGN_OR_RETURN(Statement app, Statement::Prepare(*this, "PRAGMA application_id"));
  GH_ASSIGN_OR_RETURN(bool app_row, app.Step());
  const long long application_id = app_row ? app.Int(0) : 0;
  GH_ASSIGN_OR_RETURN(Statement tables, Statement::Prepare(*this, "SELECT count(*) FROM sqlite_master"));
  GH_ASSIGN_OR_RETURN(bool tables_row, tables.Step());
  const long long table_count = tables_row ? tables.Int(0) : 0;
  if (application_id != kHistoryApplicationId && table_count > 0) {
    return foreign("an SQLite database of another application");
  }
  GH_ASSIGN_OR_RETURN(int version, SchemaVersion());
  if (version > target_version) {
    return absl::InvalidArgumentError(absl::StrCat(
        path_, ": history schema version ", version, " is newer than this gpuharness knows (",
        target_version, "); use a newer gpuharness"));
  }
  return absl::OkStatus();
}

absl::Status HistoryDb::Migrate(int target_version) {
  return InTransaction([&]() -> absl::Status {
    // Read again under the write lock: a concurrent ingest may have migrated meanwhile.
    GH_ASSIGN_OR_RETURN(int version, SchemaVersion());
    for (int k = version; k < target_version; ++k) {
      GH_RETURN_IF_ERROR(Exec(HistoryMigrations()[k]));
    }
    if (version < target_version) {
      GH_RETURN_IF_ERROR(Exec(absl::StrCat("PRAGMA application_id=", kHistoryApplicationId)));
      GH_RETURN_IF_ERROR(Exec(absl::StrCat("PRAGMA user_version=", target_version)));
    }
    return absl::OkStatus();
  });
}

absl::Status HistoryDb::InTransaction(const std::function<absl::Status()>& body) {
  GH_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  absl::Status status = body();
  if (status.ok()) status = Exec("COMMIT");
  if (!status.ok()) sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
  return status;
}

absl::Status HistoryDb::Exec(const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &message);
  const std::string text = message ? message : "";
  sqlite3_free(message);
  if (rc == SQLITE_OK) return absl::OkStatus();
  if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_, ": not a gpuharness history database (", text, ")"));
  }
  if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) return absl::UnavailableError(absl::StrCat(path_, ": ", text));
  if (rc == SQLITE_CANTOPEN || rc == SQLITE_READONLY || rc == SQLITE_PERM) {
    return absl::PermissionDeniedError(absl::StrCat(path_, ": ", text));
  }
  return absl::InternalError(absl::StrCat(path_, ": ", text));
}

absl::StatusOr<int> HistoryDb::SchemaVersion() {
  GH_ASSIGN_OR_RETURN(Statement s, Statement::Prepare(*this, "PRAGMA user_version"));
  GH_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? static_cast<int>(s.Int(0)) : 0;
}

absl::StatusOr<long long> HistoryDb::CountRows(const std::string& table) {
  GH_ASSIGN_OR_RETURN(Statement s, Statement::Prepare(*this, absl::StrCat("SELECT count(*) FROM ", table)));
  GH_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

absl::Status HistoryDb::Error(const std::string& what) const {
  const int rc = db_ ? sqlite3_errcode(db_.get()) : SQLITE_ERROR;
  const std::string message = db_ ? sqlite3_errmsg(db_.get()) : "out of memory";
  if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_, ": not a gpuharness history database (", message, ")"));
  }
  if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
    return absl::UnavailableError(absl::StrCat(path_, ": ", what, ": ", message));
  }
  if (rc == SQLITE_CANTOPEN || rc == SQLITE_READONLY || rc == SQLITE_PERM) {
    return absl::PermissionDeniedError(absl::StrCat(path_, ": ", what, ": ", message));
  }
  return absl::InternalError(absl::StrCat(path_, ": ", what, ": ", message));
}

absl::StatusOr<Statement> Statement::Prepare(const HistoryDb& db, const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    return db.Error(absl::StrCat("preparing ", sql.substr(0, 40)));
  }
  return Statement(&db, stmt);
}

Statement& Statement::Bind(int index, const std::string& text) {
  sqlite3_bind_text(stmt_.get(), index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::Bind(int index, long long value) {
  sqlite3_bind_int64(stmt_.get(), index, value);
  return *this;
}
Statement& Statement::Bind(int index, double value) {
  sqlite3_bind_double(stmt_.get(), index, value);
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error("query failed");
}

absl::Status Statement::Run() {
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return absl::OkStatus();
  }
}

void Statement::Reset() {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
}

std::string Statement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_.get(), column);
  return text ? reinterpret_cast<const char*>(text) : "";
}
long long Statement::Int(int column) const { return sqlite3_column_int64(stmt_.get(), column); }
double Statement::Double(int column) const { return sqlite3_column_double(stmt_.get(), column); }
bool Statement::IsNull(int column) const { return sqlite3_column_type(stmt_.get(), column) == SQLITE_NULL; }

}  // namespace gh
