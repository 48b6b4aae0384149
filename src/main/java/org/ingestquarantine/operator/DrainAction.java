package org.ingestquarantine.operator;

/**
 * A drain run and its trail entry.
 *
 * @param action the trail entry, ended
 * @param report what the run did
 */
public record DrainAction(ActionEntry action, DrainReport report) {
}
