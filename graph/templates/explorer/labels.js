/* Labels: only those that fit without overlapping, most important first. */
