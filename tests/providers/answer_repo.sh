# Sourced by the git provider tests: answer_repo DIR COMMITS PLANTED makes DIR a git repository
# of COMMITS commits of a CMake project whose `answer` prints "answer: 42", and from commit
# PLANTED on (never when PLANTED is 0) "answer: 41" with a ValueError and exit 1. Sets rev[i]
# (12 characters) and full[i] (the whole sha) of commit i.
answer_repo() {
  local dir=$1 commits=$2 planted=$3 i value
  mkdir -p "$dir"
  git -C "$dir" init -q -b main .
  git -C "$dir" config user.email t@example.com && git -C "$dir" config user.name test
  cat > "$dir/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(answer C)
add_executable(answer answer.c)
install(TARGETS answer DESTINATION bin)
CM
  for i in $(seq 1 "$commits"); do
    value=42
    [ "$planted" -gt 0 ] && [ "$i" -ge "$planted" ] && value=41   # the planted change
    printf '#include <stdio.h>\n/* revision %d */\nint main(void) {\n  int v = %d;\n  printf("answer: %%d\\n", v);\n  if (v != 42) { fprintf(stderr, "ValueError: the answer is %%d, not 42\\n", v); return 1; }\n  return 0;\n}\n' "$i" "$value" > "$dir/answer.c"
    git -C "$dir" add -A && git -C "$dir" commit -qm "revision $i"
    rev[$i]=$(git -C "$dir" rev-parse --short=12 HEAD)
    full[$i]=$(git -C "$dir" rev-parse HEAD)
  done
}

# answer_git_matrix NAME: the head of a matrix NAME running answer.yaml over the git provider's
# versions of "{matrix_dir}/repo"; the caller appends the rest of the `git:` block.
answer_git_matrix() {
  cat <<YAML
name: $1
scenarios: ["$here/answer.yaml"]
defaults: {launcher: direct, ranks: 1, backend: host, timeout: 60s}
versions:
  name: commit
  git:
    repo: "{matrix_dir}/repo"
YAML
}
