package org.ingestquarantine.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Ensures both choices of coverage.skipped-documents: excluded leaves a skipped document out, missing counts it. */
class SkippedCoverageTest {

    @Test
    void shouldLeaveSkippedDocumentsOutOfTheDenominatorOrCountThemAsNotSearchable() {
        // a source of 10: 6 indexed, 1 open record, 2 skipped by policy, 1 unseen
        assertThat(SkippedCoverage.EXCLUDED.ratio(10L, 6, 1, 2)).isEqualTo(6.0 / 8);
        assertThat(SkippedCoverage.EXCLUDED.unseen(10L, 6, 1, 2)).isEqualTo(1);
        assertThat(SkippedCoverage.MISSING.ratio(10L, 6, 1, 2)).isEqualTo(6.0 / 10);
        assertThat(SkippedCoverage.MISSING.unseen(10L, 6, 1, 2)).isEqualTo(1);
        // no known total (the documents seen): excluded 6/7, missing 6/9
        assertThat(SkippedCoverage.EXCLUDED.ratio(0L, 6, 1, 2)).isEqualTo(6.0 / 7);
        assertThat(SkippedCoverage.MISSING.ratio(0L, 6, 1, 2)).isEqualTo(6.0 / 9);
        assertThat(SkippedCoverage.EXCLUDED.ratio(null, 6, 1, 2)).isNull();
    }

    @Test
    void shouldNameThePropertyForAValueItDoesNotKnow() {
        assertThat(SkippedCoverage.of(" Missing ")).isEqualTo(SkippedCoverage.MISSING);
        assertThatThrownBy(() -> SkippedCoverage.of("ignored")).hasMessageContaining(SkippedCoverage.PROPERTY);
    }
}
