#!/usr/bin/env bash
# Runs clang-tidy (the checked-in .clang-tidy) over Flotilla's own sources: service/, shared/,
# monitor/ and fuzz/ (not tests/: suites and their helpers are left to the compiler warnings).
# Any warning fails (WarningsAsErrors: '*').
#
#   scripts/clang-tidy.sh                 every source file (about 8 CPU-minutes with clang-tidy 14)
#   scripts/clang-tidy.sh --changed [REV] only the .cpp files changed since REV (default HEAD~1),
#                                         plus the .cpp beside each changed header (CI's mode)
#
# Needs a compile_commands.json from a clang build tree: $FLOTILLA_TIDY_BUILD_DIR, default
# build-asan (scripts/test-sanitizers.sh makes it). Jobs: $FLOTILLA_JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${FLOTILLA_TIDY_BUILD_DIR:-build-asan}"
jobs="${FLOTILLA_JOBS:-2}"
tidy="$(command -v clang-tidy-14 || command -v clang-tidy)"
runner="$(command -v run-clang-tidy-14 || command -v run-clang-tidy)"

if [ ! -f "$build_dir/compile_commands.json" ]; then
  echo "clang-tidy.sh: no $build_dir/compile_commands.json; run scripts/test-sanitizers.sh first" >&2
  exit 2
fi

scope='^(service|shared|monitor|fuzz)/'
if [ "${1:-}" = "--changed" ]; then
  base="${2:-HEAD~1}"
  if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
    # A shallow clone: the full pass would not fit CI's time budget.
    echo "clang-tidy.sh: no revision $base to compare with; nothing checked (full pass: $0)"
    exit 0
  fi
  mapfile -t changed < <(git diff --name-only --diff-filter=d "$base" -- | grep -E "$scope" || true)
  files=()
  for f in "${changed[@]}"; do
    case "$f" in
      *.cpp) files+=("$f") ;;
      *.h) [ -f "${f%.h}.cpp" ] && files+=("${f%.h}.cpp") ;;
    esac
  done
  if [ ${#files[@]} -eq 0 ]; then
    echo "clang-tidy.sh: no C++ source changed since $base"
    exit 0
  fi
  mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u)
  echo "clang-tidy.sh: ${#files[@]} file(s) changed since $base"
  regex="$(printf '%s\n' "${files[@]}" | sed 's/[.]/[.]/g; s|^|/|; s|$|$|' | paste -sd'|')"
else
  regex="/(service|shared|monitor|fuzz)/.*[.]cpp$"
fi

# run-clang-tidy matches the regex against the absolute paths of the compile database; moc and
# other generated files live in the build tree and are left out.
start=$(date +%s)
set +e
"$runner" -clang-tidy-binary "$tidy" -p "$build_dir" -j "$jobs" -quiet "^$(pwd)(${regex})" \
  > "$build_dir/clang-tidy.log" 2>&1
rc=$?
set -e
sed -i 's/\x1b\[[0-9;]*m//g' "$build_dir/clang-tidy.log" # run-clang-tidy forces colours
grep -E '(warning|error): ' "$build_dir/clang-tidy.log" | sort -u || true
echo "clang-tidy.sh: exit $rc, $(( $(date +%s) - start )) s (log: $build_dir/clang-tidy.log)"
exit $rc
