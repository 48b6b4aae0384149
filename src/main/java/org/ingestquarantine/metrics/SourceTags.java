package org.ingestquarantine.metrics;

import java.util.Collection;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.ingestquarantine.pipeline.RecordKey;

/**
 * The {@code source} tag a metric may carry: a source this process configures, or
 * {@value RecordKey#INVALID_MESSAGES_SOURCE}; any other name (one read from the store, where an older version
 * recorded rows under a name a producer chose) is tagged {@value RecordKey#OTHER_SOURCES}. So a source tag has at
 * most as many values as the configuration names sources, plus two, whatever the data holds.
 */
public final class SourceTags {

    private final SortedSet<String> configured;

    private SourceTags(Collection<String> configured) {
        this.configured = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(configured));
    }

    /**
     * @param configured the source names this process's configuration names
     * @return the tags of those sources
     */
    public static SourceTags of(Collection<String> configured) {
        return new SourceTags(configured);
    }

    /**
     * @param more more source names an operator named (a total stated, a root an ingest recorded)
     * @return tags of the configured sources and of those
     */
    public SourceTags with(Collection<String> more) {
        if (more.isEmpty()) {
            return this;
        }
        SortedSet<String> all = new TreeSet<>(configured);
        all.addAll(more);
        return new SourceTags(all);
    }

    /**
     * @param source a source name, from a record key or a row of the store
     * @return itself when it is configured or {@value RecordKey#INVALID_MESSAGES_SOURCE}, else
     *     {@value RecordKey#OTHER_SOURCES}
     */
    public String tag(String source) {
        return source != null && (configured.contains(source) || RecordKey.INVALID_MESSAGES_SOURCE.equals(source))
                ? source : RecordKey.OTHER_SOURCES;
    }

    /** @return the configured source names, sorted */
    public Set<String> configured() {
        return configured;
    }
}
