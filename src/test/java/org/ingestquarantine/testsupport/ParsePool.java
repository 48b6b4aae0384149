package org.ingestquarantine.testsupport;

import org.ingestquarantine.parse.ParseLimits;
import org.ingestquarantine.parse.WorkerPoolParser;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The sandboxed parser of one test class, one worker, started before its first test and stopped after its last:
 * {@code @RegisterExtension static final ParsePool PARSER = new ParsePool();}.
 */
public final class ParsePool implements BeforeAllCallback, AfterAllCallback {

    private WorkerPoolParser pool;

    @Override
    public void beforeAll(ExtensionContext context) {
        pool = new WorkerPoolParser(ParseLimits.defaults().withPoolSize(1));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (pool != null) {
            pool.close();
        }
    }

    /** @return the started parser */
    public WorkerPoolParser parser() {
        return pool;
    }
}
