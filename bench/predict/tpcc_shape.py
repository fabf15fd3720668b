#!/usr/bin/env python3
"""Write a serializable trace of the TPC-C shape the IsoPredict paper
measured (3 sessions x 8 transactions, ~7000 reads, ~1500 writes) as JSON.

Like TPC-C, a few hot keys (warehouse and district rows) are read and
written by many transactions, most writes create fresh rows (orders and
order lines), and most reads see rows written once or initial rows
(stock).  Transactions run serially in a seeded random interleaving of the
sessions, each read seeing the latest write, so the trace is serializable.

usage: tpcc_shape.py SEED OUT.json [SESSIONS TXNS READS WRITES]
"""
import json
import random
import sys


def main():
    seed, out = int(sys.argv[1]), sys.argv[2]
    sessions, txns, reads, writes = (
        [int(a) for a in sys.argv[3:7]] if len(sys.argv) >= 7
        else [3, 8, 290, 62])
    hot, stock = 8, 2000
    rng = random.Random(seed)
    last = {}                         # key -> writer txn id
    rows = []                         # fresh row keys written so far
    order = [s for s in range(sessions) for _ in range(txns)]
    rng.shuffle(order)
    done = [0] * sessions
    txs = [[] for _ in range(sessions)]
    for s in order:
        me = "s%d.t%d" % (s, done[s])
        done[s] += 1
        ops, mine = [], set()
        for _ in range(reads):
            pick = rng.randrange(10)
            if pick == 0:
                k = "hot%d" % rng.randrange(hot)
            elif pick < 5 and rows:
                k = rng.choice(rows)
            else:
                k = "stock%d" % rng.randrange(stock)
            if k in mine:
                continue              # a local read: leave it out
            ops.append({"op": "read", "key": k, "from": last.get(k, "init")})
        for w in range(writes):
            k = "hot%d" % rng.randrange(hot) if w < 2 else "row%d" % len(rows)
            if w >= 2:
                rows.append(k)
            ops.append({"op": "write", "key": k})
            mine.add(k)
        for o in ops:
            if o["op"] == "write":
                last[o["key"]] = me
        txs[s].append({"id": me, "ops": ops})
    doc = {"isopredict_trace": 1, "initial": "init",
           "comment": "TPC-C-shaped trace, seed %d" % seed,
           "sessions": [{"id": "s%d" % s, "transactions": txs[s]}
                        for s in range(sessions)]}
    with open(out, "x") as f:
        json.dump(doc, f)


if __name__ == "__main__":
    main()
