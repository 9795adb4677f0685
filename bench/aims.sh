#!/usr/bin/env bash
# Issue 20's table, row by row: every bench that measures one of its aims, run in turn on this
# checkout, each with its own anchor in the same run (python-chess, eventsourcing, render_svg,
# the page as it was). Each bench's whole output goes to bench/results/aims-<time>/<row>.txt,
# with the load average before and the wall time after; the summary lists the files. Run it on
# a quiet machine (nothing else on the two cores): about 20 minutes with every row (on 4
# December: verify 35 s, audit 34 s, load 210 s, durability 15 s, browser 60 s; demo and test
# a few minutes each).
#
#   bash bench/aims.sh [ROW...]     rows: verify audit load durability pictures browser demo test
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
[ -x "$PY" ] || { echo "aims: no .venv here: run make install first" >&2; exit 2; }
ROWS=("$@")
[ ${#ROWS[@]} -gt 0 ] || ROWS=(verify audit load durability pictures browser demo test)
PG=${FAIRDEAL_TEST_POSTGRES_URL:-}

command_of() {
  case "$1" in
    verify) echo "$PY bench/bench_compiled.py --matches 200 --runs 3 --rounds 3" ;;
    audit) echo "$PY bench/bench_audit.py --matches 300 --runs 1 --big 100000" ;;
    load) echo "$PY bench/bench_load.py --servers granian --seconds 30 --rounds 3 --concurrency 16${PG:+ --postgres $PG}" ;;
    durability) echo "$PY bench/bench_ledger.py --durability 5 --moves 1600" ;;
    pictures) echo "$PY bench/bench_pictures.py --runs 3" ;;
    browser) echo "$PY bench/bench_browser_verify.py --runs 3" ;;
    demo) echo "python3 bench/bench_demo.py" ;;
    test) echo "make test" ;;
    *) return 1 ;;
  esac
}

for row in "${ROWS[@]}"; do
  command_of "$row" > /dev/null || { echo "aims: no row '$row' (verify audit load durability pictures browser demo test)" >&2; exit 2; }
done
OUT="bench/results/aims-$(date -u +%Y%m%dT%H%MZ)"
mkdir -p "$OUT"
for row in "${ROWS[@]}"; do
  command=$(command_of "$row")
  file="$OUT/$row.txt"
  {
    echo "# $command"
    echo "# before: $(uptime)"
  } > "$file"
  started=$(date +%s)
  echo "aims: $row: $command"
  $command >> "$file" 2>&1
  status=$?
  echo "# after $(( $(date +%s) - started )) s, exit $status: $(uptime)" >> "$file"
  echo "aims: $row: exit $status, $(( $(date +%s) - started )) s -> $file"
done
echo "aims: the outputs are in $OUT"
