// The history database: one SQLite file (WAL mode, a busy timeout) whose schema is versioned
// with PRAGMA user_version and marked as ours with PRAGMA application_id. Opening applies the
// migrations the file lacks, in order, in one transaction; a file that is not SQLite, is
// damaged, carries another application's tables or a newer schema is refused untouched.
// Queries open the file read-only, so a database they may not write (another user's, a
// read-only mount) still answers.
#ifndef GPUHARNESS_HISTORY_HISTORY_DB_H_
#define GPUHARNESS_HISTORY_HISTORY_DB_H_

#include <sqlite3.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace gh {

inline constexpr int kHistoryApplicationId = 0x47484854;  // "GHHT"

// Migration k (1-based) takes a database from schema version k-1 to k.
const std::vector<std::string>& HistoryMigrations();
inline int HistorySchemaVersion() { return static_cast<int>(HistoryMigrations().size()); }

class HistoryDb {
 public:
  // kCreate: ingest, read-write, creating the file. kQuery: the file must exist and is opened
  // read-only; a reader that may not write it, or its directory, reads it as an immutable file
  // (as last checkpointed: a finished ingest leaves nothing else behind) and leaves no
  // shared-memory file (-shm) of its own beside it. An older schema is upgraded first, which
  // needs write access.
  enum class Mode { kCreate, kQuery };
  // Opens `path` and brings its schema to `target_version` (HistorySchemaVersion() unless a
  // test asks for an older one). InvalidArgument naming the file for anything not ours;
  // PermissionDenied when it cannot be read or written as `mode` needs.
  static absl::StatusOr<HistoryDb> Open(const std::string& path, Mode mode,
                                        int target_version = HistorySchemaVersion());

  sqlite3* handle() const { return db_.get(); }
  const std::string& path() const { return path_; }

  // Runs `body` inside BEGIN IMMEDIATE .. COMMIT (ROLLBACK when it fails).
  absl::Status InTransaction(const std::function<absl::Status()>& body);
  absl::Status Exec(const std::string& sql);
  absl::StatusOr<int> SchemaVersion();
  absl::StatusOr<long long> CountRows(const std::string& table);
  absl::Status Error(const std::string& what) const;  // "<path>: <what>: <sqlite message>"

 private:
  // One attempt at Open; Unavailable when another process held a lock SQLite would not wait
  // for (it returns SQLITE_BUSY at once where waiting could deadlock).
  static absl::StatusOr<HistoryDb> OpenOnce(const std::string& path, Mode mode, int target_version);
  static absl::StatusOr<HistoryDb> OpenForQuery(const std::string& path, int target_version);
  // A connection with `flags`; `uri` (a file: URI) instead of the path when not empty.
  static absl::StatusOr<HistoryDb> Connect(const std::string& path, int flags, const std::string& uri = "");
  HistoryDb(std::string path, sqlite3* db) : path_(std::move(path)), db_(db, &sqlite3_close_v2) {}
  absl::Status CheckOurs(int target_version);
  absl::Status Migrate(int target_version);
  std::string path_;
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db_;
};

// A prepared statement with typed binds and column reads.
class Statement {
 public:
  static absl::StatusOr<Statement> Prepare(const HistoryDb& db, const std::string& sql);
  Statement& Bind(int index, const std::string& text);
  Statement& Bind(int index, long long value);
  Statement& Bind(int index, double value);
  absl::StatusOr<bool> Step();  // true: a row is ready
  absl::Status Run();           // steps to the end
  void Reset();
  std::string Text(int column) const;
  long long Int(int column) const;
  double Double(int column) const;
  bool IsNull(int column) const;

 private:
  Statement(const HistoryDb* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt, &sqlite3_finalize) {}
  const HistoryDb* db_;
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt_;
};

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_HISTORY_DB_H_
