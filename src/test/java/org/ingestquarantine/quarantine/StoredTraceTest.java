package org.ingestquarantine.quarantine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import org.ingestquarantine.failure.RemoteCause;
import org.junit.jupiter.api.Test;

/** Ensures a stored stack trace reads back as the cause chain printStackTrace printed: types and whole stacks. */
class StoredTraceTest {

    @Test
    void shouldReadTheChainOutermostFirstWithTheRootsWholeStack() {
        IOException root = catchThrowableOfType(() -> {
            throw new IOException("bad xref\nat offset 12");
        }, IOException.class);
        RuntimeException failure = new IllegalStateException("parse failed", new UncheckedIOException("io", root));

        StoredTrace trace = StoredTrace.parse(printed(failure)).orElseThrow();

        assertThat(trace.chain()).extracting(StoredTrace.Cause::type).containsExactly(
                IllegalStateException.class.getName(), UncheckedIOException.class.getName(), IOException.class.getName());
        assertThat(printed(failure)).as("printStackTrace left the common frames out").contains("... ");
        assertThat(frames(trace.root().frames())).isEqualTo(frames(Arrays.asList(root.getStackTrace())));
        assertThat(frames(trace.chain().get(0).frames())).isEqualTo(frames(Arrays.asList(failure.getStackTrace())));
    }

    @Test
    void shouldSkipSuppressedExceptionsAndTheirCauses() {
        IllegalStateException outer = new IllegalStateException("outer");
        outer.addSuppressed(new IllegalArgumentException("closing", new ArithmeticException("inner")));
        RuntimeException failure = new RuntimeException("top", outer);

        StoredTrace trace = StoredTrace.parse(printed(failure)).orElseThrow();

        assertThat(printed(failure)).contains("\tSuppressed: ", "\tCaused by: ");
        assertThat(trace.chain()).extracting(StoredTrace.Cause::type)
                .containsExactly(RuntimeException.class.getName(), IllegalStateException.class.getName());
        assertThat(frames(trace.root().frames())).isEqualTo(frames(Arrays.asList(outer.getStackTrace())));
    }

    @Test
    void shouldReadAWorkersRemoteCauseByTheTypeItNames() {
        StackTraceElement[] worker = {
                new StackTraceElement("org.ingestquarantine.parse.InProcessPdfParser", "parse", "InProcessPdfParser.java", 70),
                new StackTraceElement("org.ingestquarantine.parse.WorkerMain", "main", "WorkerMain.java", 52)};
        RuntimeException failure = new IllegalStateException("rebuilt",
                new RemoteCause("org.ingestquarantine.parse.NotPdfException", "not a PDF", worker));

        StoredTrace.Cause root = StoredTrace.parse(printed(failure)).orElseThrow().root();

        assertThat(root.type()).isEqualTo("org.ingestquarantine.parse.NotPdfException");
        assertThat(frames(root.frames())).isEqualTo(frames(Arrays.asList(worker)));
    }

    @Test
    void shouldReadModuleLoaderAndHiddenClassFrames() {
        StackTraceElement[] written = {
                new StackTraceElement("app", null, null, "org.example.Bean", "run", "Bean.java", 3),
                new StackTraceElement(null, "java.base", "17.0.9", "java.lang.Thread", "run", "Thread.java", 833),
                new StackTraceElement("org.example.Stages$$Lambda$412/0x0000000800c41a38", "apply", null, -1),
                new StackTraceElement("jdk.internal.reflect.NativeMethodAccessorImpl", "invoke0", null, -2)};
        for (StackTraceElement e : written) {
            StackTraceElement read = StoredTrace.frameOf(e.toString());
            assertThat(read.getClassName() + "." + read.getMethodName() + ":" + read.getLineNumber())
                    .as(e.toString()).isEqualTo(e.getClassName() + "." + e.getMethodName() + ":" + e.getLineNumber());
        }
    }

    @Test
    void shouldReadNothingFromATextThatIsNotATraceOrACycle() {
        IllegalStateException a = new IllegalStateException("a");
        IllegalArgumentException b = new IllegalArgumentException("b", a);
        a.initCause(b);

        assertThat(printed(a)).contains("[CIRCULAR REFERENCE");
        assertThat(StoredTrace.parse(printed(a))).isEmpty();
        assertThat(StoredTrace.parse("%PDF-1.7 not a trace")).isEmpty();
        assertThat(StoredTrace.parse("java.io.IOException: x\n\tat not a frame\n")).isEmpty();
    }

    private static String printed(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }

    private static List<String> frames(List<StackTraceElement> frames) {
        return frames.stream().map(f -> f.getClassName() + "." + f.getMethodName() + ":" + f.getLineNumber()).toList();
    }
}
