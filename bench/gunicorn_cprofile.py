"""gunicorn.conf.py plus cProfile, for bench/charges.py --cprofile: each worker profiles the requests to
PUT /transactions (our charge, not the floor's or the warm-up's other routes) and writes its stats to
$BENCH_CPROFILE_DIR/worker-<pid>.prof when it exits. Times are the thread's CPU time (time.thread_time), not
the wall clock: on a shared machine a wait for the CPU or for PostgreSQL is not counted as the function's. Profile
with sync workers (--threads 1): cProfile sees the thread that enabled it only."""

import cProfile
import os
import runpy
import time
from pathlib import Path

_DEPLOYED = runpy.run_path(str(Path(__file__).resolve().parent.parent / "gunicorn.conf.py"))
globals().update({name: value for name, value in _DEPLOYED.items() if not name.startswith("__")})

_PROFILED = ("PUT", "/transactions")


def post_worker_init(worker):
    profiler = cProfile.Profile(time.thread_time)
    application = worker.wsgi

    def profiled(environ, start_response):
        if (environ.get("REQUEST_METHOD"), environ.get("PATH_INFO")) != _PROFILED:
            return application(environ, start_response)
        profiler.enable()
        try:
            return application(environ, start_response)
        finally:
            profiler.disable()

    worker.wsgi, worker.bench_profiler = profiled, profiler


def worker_exit(server, worker):
    profiler = getattr(worker, "bench_profiler", None)
    if profiler is not None:
        profiler.dump_stats(Path(os.environ["BENCH_CPROFILE_DIR"]) / f"worker-{os.getpid()}.prof")
