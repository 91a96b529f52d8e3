"""Running work in parallel: forked workers and the build's job queue."""
