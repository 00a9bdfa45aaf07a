/* interpose.c: not written yet. */
