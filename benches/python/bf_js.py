"""BF-J/S in plain Python, written independently of packlab, as a speed reference.

The slotted model of Psychas & Ghaderi: L servers of capacity 1; in each slot, (1) jobs whose
service ended leave, (2) a Poisson batch arrives, (3) BF-S on every server that had a departure
(largest waiting job that fits, until none fits; ties to the earliest arrival), then BF-J for
each job of the new batch still waiting, in arrival order (the fitting server with the least
free capacity; ties to the lowest index), (4) the queue length is recorded. Sizes uniform on
[low, high], geometric service times with the given mean, sizes on a 10^-6 grid (integers).

Usage: python3 bf_js.py SERVERS LOW HIGH MEAN_SERVICE LOAD SLOTS SEED
Prints: jobs, mean queue, seconds.
"""

import math
import random
import sys
import time

UNIT = 1_000_000


def main():
    servers = int(sys.argv[1])
    low, high = float(sys.argv[2]), float(sys.argv[3])
    mean_service, load = float(sys.argv[4]), float(sys.argv[5])
    slots, seed = int(sys.argv[6]), int(sys.argv[7])
    rng = random.Random(seed)
    lo, hi = round(low * UNIT), round(high * UNIT)
    rate = load * servers / ((low + high) / 2 * mean_service)
    exp_neg_rate = math.exp(-rate)
    log_q = math.log(1.0 - 1.0 / mean_service)

    free = [UNIT] * servers
    leaving = {}  # slot -> list of (server, size)
    queue = []  # waiting jobs as (size, arrival order), in arrival order
    order = 0
    jobs = 0
    q_sum = 0
    start = time.perf_counter()
    for t in range(slots):
        # (1) departures
        departed = []
        for server, size in leaving.pop(t, ()):
            free[server] += size
            departed.append(server)
        # (2) arrivals: Poisson by multiplying uniforms
        n, p = 0, rng.random()
        while p > exp_neg_rate:
            n += 1
            p *= rng.random()
        batch = []
        for _ in range(n):
            size = rng.randint(lo, hi)
            u = rng.random()
            service = 1 + int(math.log(1.0 - u) / log_q) if mean_service > 1 else 1
            job = [size, order, service]
            order += 1
            jobs += 1
            queue.append(job)
            batch.append(job)
        # (3) BF-S on the servers with a departure, in index order
        for server in sorted(set(departed)):
            while True:
                best = None
                for job in queue:
                    if job[0] <= free[server] and (best is None or job[0] > best[0]):
                        best = job
                if best is None:
                    break
                queue.remove(best)
                free[server] -= best[0]
                leaving.setdefault(t + best[2], []).append((server, best[0]))
        # then BF-J for the new jobs still waiting
        for job in batch:
            if job not in queue:
                continue
            best = None
            for server in range(servers):
                if free[server] >= job[0] and (best is None or free[server] < free[best]):
                    best = server
            if best is not None:
                queue.remove(job)
                free[best] -= job[0]
                leaving.setdefault(t + job[2], []).append((best, job[0]))
        # (4) record
        q_sum += len(queue)
    seconds = time.perf_counter() - start
    print(jobs, q_sum / slots, seconds)


if __name__ == "__main__":
    main()
