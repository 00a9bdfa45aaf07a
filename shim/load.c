/* load.c: not written yet. */
