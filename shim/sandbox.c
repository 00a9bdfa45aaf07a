/* sandbox.c: not written yet. */
