package org.ingestquarantine.cli;

import java.util.List;
import java.util.Optional;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;

/**
 * A route file ({@code routes/*.camel.yaml}) that Camel's YAML DSL could not read: broken YAML, an unknown field,
 * a value of the wrong kind. Said as a compiler says it, {@code <file>:<line>:<column>: <problem>}, with Camel's own
 * text (each mark's file, line, column, the line itself and a caret under the place) on the lines that follow.
 */
final class RouteFileError {

    private final MarkedYamlEngineException yaml;
    private final Mark mark;

    private RouteFileError(MarkedYamlEngineException yaml, Mark mark) {
        this.yaml = yaml;
        this.mark = mark;
    }

    /** @return the route-file error in {@code e}'s cause chain, if there is one that Camel marked with a place */
    static Optional<RouteFileError> in(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof MarkedYamlEngineException yaml) {
                // the problem's place where there is one (where the parser gave up), else the context's
                Optional<Mark> mark = yaml.getProblemMark().or(yaml::getContextMark);
                if (mark.isPresent()) {
                    return Optional.of(new RouteFileError(yaml, mark.get()));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * @return {@code <file>:<line>:<column>: <problem>[ (<context>)]}, lines and columns counted from 1 as in
     *     Camel's text, the file as a path (Camel names it {@code file:<path>})
     */
    String firstLine() {
        String line = file() + ":" + (mark.getLine() + 1) + ":" + (mark.getColumn() + 1) + ": " + what();
        return line.lines().findFirst().orElse(line);
    }

    /** @return the problem with its context: {@code <problem>[ (<context>)]} */
    private String what() {
        String problem = yaml.getProblem();
        String context = yaml.getContext();
        String what = problem == null ? context : context == null ? problem : problem + " (" + context + ")";
        return what == null ? yaml.getClass().getSimpleName() : what;
    }

    /** @return the same as one {@link RouteProblem}: its file, line and problem */
    RouteProblem problem() {
        return new RouteProblem(file(), mark.getLine() + 1, what());
    }

    /** @return Camel's message, line by line, without blank lines: each place with its snippet and caret */
    List<String> details() {
        return yaml.getMessage().lines().filter(l -> !l.isBlank()).toList();
    }

    private String file() {
        String name = mark.getName();
        return name.startsWith("file:") ? name.substring("file:".length()) : name;
    }
}
