"""packlab's FIFO-FF and BF-J/S rewritten as Python classes, rule for rule (the tests check
that they make the same decisions as the built-in ones: identical outputs). Sizes are compared
in packlab's exact fixed-point units (``job.units``, ``cluster.free(i)``)."""

from collections import deque


class PyFifoFirstFit:
    """FIFO-FF: the head of the queue goes to the first server (lowest index) with room for
    it; when none has, everything waits (head-of-line blocking)."""

    idle = True  # a slot without arrivals or departures changes nothing

    def __init__(self, servers):
        self.queue = deque()

    def enqueue(self, job):
        self.queue.append(job)

    def schedule(self, cluster):
        while self.queue:
            head = self.queue[0]
            server = next(
                (i for i in range(cluster.servers) if cluster.free(i) >= head.units), None
            )
            if server is None:
                return
            cluster.place(server, self.queue.popleft())

    def waiting(self):
        return len(self.queue)


class PyBestFitJS:
    """BF-J/S: each server that had a departure is refilled with the largest waiting jobs that
    fit (ties: the earliest), in index order; then each job of this slot's arrivals, in arrival
    order, goes to the fullest server it fits on (ties: the lowest index), or waits."""

    idle = True

    def __init__(self, servers):
        self.queue = []  # waiting jobs in arrival order
        self.batch = []  # ids of this slot's arrivals

    def enqueue(self, job):
        self.batch.append(job.id)
        self.queue.append(job)

    def largest_fitting(self, free):
        best = None
        for k, j in enumerate(self.queue):
            if j.units <= free and (best is None or j.units > self.queue[best].units):
                best = k
        return best

    def schedule(self, cluster):
        for i in cluster.departed:
            while True:
                k = self.largest_fitting(cluster.free(i))
                if k is None:
                    break
                cluster.place(i, self.queue.pop(k))
        for job_id in self.batch:
            k = next((k for k, j in enumerate(self.queue) if j.id == job_id), None)
            if k is None:
                continue
            size, best = self.queue[k].units, None
            for i in range(cluster.servers):
                f = cluster.free(i)
                if f >= size and (best is None or f < cluster.free(best)):
                    best = i
            if best is not None:
                cluster.place(best, self.queue.pop(k))
        self.batch.clear()

    def waiting(self):
        return len(self.queue)
