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
"""
import json
import sys
import time

from reference.serve import dumps, request_answer


def main():
    mode = sys.argv[1]
    held = None
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
