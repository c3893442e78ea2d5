"""Running the pipeline over many records: a process pool or Dask, each worker with bounded
memory."""
