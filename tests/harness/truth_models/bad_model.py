"""Models that misbehave, one way each (the first argument), for check-truth's error tests.

    nonjson   prints a line that is not JSON
    shape     answers the built-in reference's answers with one field of one query cut short
    crash     exits with status 3 after reading the first request
    hang      reads the first request and never answers
    count     answers one query fewer than asked
    order     answers the second chunk's line first (answers out of request order)
    late      answers the built-in reference's answers with bit 0 of a controller's position x
              flipped at every time from 2048 on: wrong values, which the shrinker cuts to one time
    vertex    answers the built-in reference's answers with bit 0 of the first vertex's x flipped
              in every Modify blend
    widen     answers the built-in reference's answers with every 3x3 compared within a tolerance
              made wrong (bit 16 of each element: about 1% of it), claiming a scale of 1e38 and
              2^20 keys passed wherever it can: a model setting its own tolerance
    saturate  answers every Modify blend's vertices as 32767 (saturated)
    longline  writes 4 MiB of one answer line and no newline, then waits
    fork      forks a child that keeps its stdout open and sleeps (its pid written to the file
              named by the second argument, a line added), then answers as the built-in reference
"""
import json
import os
import sys
import time

from reference.serve import dumps, request_answer


HUGE = 0x7E967699          # 1e38 as an f32 word
KEYS = 1 << 20


def widen(msg, reply):
    for q, a in zip(msg["queries"], reply["answers"]):
        if a["kind"] == "controller" and q.get("rotation") == "keyed":
            a["rot"] = [[w ^ (1 << 16) for w in row] for row in a["rot"]]
            a["passed"] = [KEYS] * len(a["rot"])
        elif a["kind"] == "multistep" and q.get("rotation") == "keyed":
            a["rot"] = [w ^ (1 << 16) for w in a["rot"]]
            a["passed"] = KEYS
        elif a["kind"] == "playback":
            for step in a["matrix"]:
                for j in q["tolerance"]:
                    step[j][:9] = [w ^ (1 << 16) for w in step[j][:9]]
            a["scale"] = [[[HUGE] * 3 for _ in q["tolerance"]] for _ in q["read"]]
            a["passed"] = [[KEYS for _ in q["tolerance"]] for _ in q["read"]]


def main():
    mode = sys.argv[1]
    held = None
    if mode == "fork":
        child = os.fork()
        if child == 0:
            time.sleep(3600)             # the child: holds stdout, never exits by itself
            os._exit(0)
        with open(sys.argv[2], "a") as f:
            f.write(f"{child}\n")
    for n, line in enumerate(sys.stdin):
        msg = json.loads(line)
        if mode == "nonjson":
            print("Traceback (most recent call last): \x1b[31mnot an answer", flush=True)
            continue
        if mode == "crash":
            print("model: giving up", file=sys.stderr, flush=True)
            sys.exit(3)
        if mode == "hang":
            time.sleep(3600)
        if mode == "longline":
            sys.stdout.write("[" + "0," * (2 << 20))
            sys.stdout.flush()
            time.sleep(3600)
        reply = json.loads(dumps(request_answer(msg), packed=False))
        if mode == "shape":
            for a in reply["answers"]:
                if a["kind"] == "controller" and a["pos"]:
                    a["pos"][0] = a["pos"][0][:2]
                    break
        elif mode == "late":
            for q, a in zip(msg["queries"], reply["answers"]):
                if a["kind"] == "controller":
                    for k, t in enumerate(q["times"]):
                        if t >= 2048:
                            a["pos"][k][0] ^= 1
        elif mode == "saturate":
            for a in reply["answers"]:
                if a["kind"] == "modify":
                    a["vertices"] = [[32767] * 3 for _ in a["vertices"]]
        elif mode == "widen":
            widen(msg, reply)
        elif mode == "vertex":
            for a in reply["answers"]:
                if a["kind"] == "modify" and a["vertices"]:
                    a["vertices"][0][0] ^= 1
        elif mode == "count":
            reply["answers"] = reply["answers"][:-1]
        elif mode == "order" and n == 0:
            held = reply
            continue
        print(json.dumps(reply), flush=True)
        if held is not None:
            print(json.dumps(held), flush=True)
            held = None


if __name__ == "__main__":
    main()
