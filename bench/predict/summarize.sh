#!/bin/sh
# Averages per (app, size, model, strategy) of bench/predict/run.sh's
# runs.csv, as CSV (second argument, a new file) and a markdown table.
# usage: summarize.sh RUNS.csv SUMMARY.csv
set -eu
runs=$1 csv=$2
[ -e "$csv" ] && { echo "$csv exists; not overwriting it" >&2; exit 2; }
awk -F, -v csv="$csv" '
NR == 1 { next }
{
    k = $1 "," $2 "x" $3 "," $5 "," $6
    if (!(k in n)) order[++nk] = k
    n[k]++; reads[k] += $9; writes[k] += $10; comm[k] += $11
    if ($8 == "unknown") unk[k]++
    else if ($8 == "unsat") { unsat[k]++; if ($14 != "") { su[k] += $14; nsu[k]++ } else if ($15 != "") { su[k] += $15; nsu[k]++ } }
    else if ($8 == "sat") { sat[k]++; if ($14 != "") { ss[k] += $14; nss[k]++ } else if ($15 != "") { ss[k] += $15; nss[k]++ } }
    else err[k]++
    if ($12 != "") { lit[k] += $12; nlit[k]++ }
    if ($13 != "") { gen[k] += $13; ngen[k]++ }
    if ($16 + 0 > mem[k]) mem[k] = $16 + 0
    if ($17 == 1) val[k]++
    if ($18 == 1) div[k]++
}
function avg(s, c) { return c ? sprintf("%.2f", s / c) : "-" }
END {
    print "app,size,model,strategy,runs,reads,writes,committed,unknown,unsat,sat,error,validated,diverged,avg_literals,avg_gen_s,avg_solve_sat_s,avg_solve_unsat_s,peak_mb" > csv
    print "| app | size | model | strategy | reads | writes | committed | unk | unsat | sat | validated (diverged) | # literals | gen s | solve s (sat) | solve s (unsat) | peak MB |"
    print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= nk; i++) {
        k = order[i]; split(k, f, ",")
        line = sprintf("%s,%d,%.1f,%.1f,%.1f,%d,%d,%d,%d,%d,%d,%s,%s,%s,%s,%.1f", k, n[k],
            reads[k] / n[k], writes[k] / n[k], comm[k] / n[k], unk[k], unsat[k], sat[k], err[k],
            val[k], div[k], avg(lit[k], nlit[k]), avg(gen[k], ngen[k]), avg(ss[k], nss[k]),
            avg(su[k], nsu[k]), mem[k] / 1024)
        print line > csv
        printf "| %s | %s | %s | %s | %.1f | %.1f | %.1f | %d | %d | %d | %d (%d) | %s | %s | %s | %s | %.1f |\n",
            f[1], f[2], f[3], f[4], reads[k] / n[k], writes[k] / n[k], comm[k] / n[k], unk[k] + err[k],
            unsat[k], sat[k], val[k], div[k], avg(lit[k], nlit[k]), avg(gen[k], ngen[k]),
            avg(ss[k], nss[k]), avg(su[k], nsu[k]), mem[k] / 1024
    }
}' "$runs"
