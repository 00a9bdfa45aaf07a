/* envshim.c: not written yet. */
