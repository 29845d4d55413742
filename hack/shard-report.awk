# Reads a passing shard's `go test -v` output, each line prefixed with the seconds since the shard
# began (hack/test-integration.sh), and prints each test's time, slowest first (the lines
# hack/integration-durations.txt is refreshed from). Under each test of at least `slow` seconds it
# prints where the time went, in order: its subtests' times and every quiet spell of at least `quiet`
# seconds with the line that ended it (a wait of the framework's Eventually logs what it waited for
# when it ends, so that line often names the wait).
#   awk -v slow=120 -v quiet=30 -f hack/shard-report.awk shard.log
function trim(s) { sub(/^ +/, "", s); return length(s) > 170 ? substr(s, 1, 167) "..." : s }
{
  t = $1 + 0
  line = $0; sub(/^ *[0-9]+ /, "", line)
  if (line ~ /^=== (RUN|NAME|CONT) /) {
    name = line; sub(/^=== [A-Z]+ +/, "", name); sub(/\/.*/, "", name); top = name
  }
  if (NR > 1 && top != "" && t - prev >= quiet) {
    notes[top] = notes[top] sprintf("      %5ds quiet, then: %s\n", t - prev, trim(line))
  }
  prev = t
  if (line ~ /^    --- (PASS|FAIL): /) {
    split(line, f, " "); secs = f[4]; gsub(/[()s]/, "", secs)
    notes[top] = notes[top] sprintf("    %7.1fs %s\n", secs, f[3])
  }
  if (line ~ /^--- (PASS|FAIL): /) {
    split(line, f, " "); secs = f[4]; gsub(/[()s]/, "", secs)
    took[f[3]] = secs + 0; order[++n] = f[3]
  }
}
END {
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (took[order[j]] > took[order[i]]) { x = order[i]; order[i] = order[j]; order[j] = x }
  for (i = 1; i <= n; i++) {
    printf "  %7.1fs %s\n", took[order[i]], order[i]
    if (took[order[i]] >= slow) printf "%s", notes[order[i]]
  }
}
