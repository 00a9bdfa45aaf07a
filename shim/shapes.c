/* shapes.c: not written yet. */
