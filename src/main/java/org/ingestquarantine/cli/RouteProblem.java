package org.ingestquarantine.cli;

/**
 * One thing wrong with a route file, said as a compiler says it: {@code <file>:<line>: <problem>}.
 *
 * @param file the route file's path (Camel names it {@code file:<path>}; the prefix is dropped)
 * @param line the line it is on, counted from 1, or 0 when Camel knows no line
 * @param problem what is wrong and, where it helps, what to do
 */
record RouteProblem(String file, int line, String problem) {

    /** @return a problem at a model node's place, {@code location} as Camel keeps it ({@code file:/a/b.camel.yaml}) */
    static RouteProblem at(String location, int line, String problem) {
        String file = location == null ? "?" : location.startsWith("file:") ? location.substring("file:".length())
                : location;
        return new RouteProblem(file, Math.max(line, 0), problem);
    }

    @Override
    public String toString() {
        String first = problem.lines().findFirst().orElse(problem);
        return file + ":" + line + ": " + first;
    }
}
