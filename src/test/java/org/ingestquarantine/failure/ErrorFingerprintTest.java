package org.ingestquarantine.failure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Ensures a fingerprint names the failure's type and place, not its message, line numbers or wrapping. */
class ErrorFingerprintTest {

    @Test
    void shouldShareOneFingerprintForTwoInputsFailingAtTheSamePlace() {
        String a = ErrorFingerprint.of(parse("document one"));
        String b = ErrorFingerprint.of(parse("a different document entirely"));

        assertThat(a).isEqualTo(b).hasSize(16).matches("[0-9a-f]{16}");
    }

    @Test
    void shouldIgnoreMessagesAndLineNumbers() {
        IOException first = failure(IOException.class, "message A", 10);
        IOException second = failure(IOException.class, "message B", 999);

        assertThat(ErrorFingerprint.of(first)).isEqualTo(ErrorFingerprint.of(second));
    }

    @Test
    void shouldDifferForDifferentTypesOrPlaces() {
        String io = ErrorFingerprint.of(failure(IOException.class, "x", 1));
        String state = ErrorFingerprint.of(failure(IllegalStateException.class, "x", 1));
        IOException elsewhere = failure(IOException.class, "x", 1);
        StackTraceElement[] frames = elsewhere.getStackTrace();
        frames[1] = new StackTraceElement("org.apache.pdfbox.pdfparser.COSParser", "parseXref", "COSParser.java", 1);
        elsewhere.setStackTrace(frames);

        assertThat(io).isNotEqualTo(state);
        assertThat(ErrorFingerprint.of(elsewhere)).isNotEqualTo(io);
    }

    @Test
    void shouldOnlyCountTheTopThreeFrames() {
        IOException a = failure(IOException.class, "x", 1);
        IOException b = failure(IOException.class, "x", 1);
        StackTraceElement[] frames = b.getStackTrace();
        frames[3] = new StackTraceElement("some.Caller", "somewhereElse", null, 7);
        b.setStackTrace(frames);

        assertThat(ErrorFingerprint.of(a)).isEqualTo(ErrorFingerprint.of(b));
    }

    @Test
    void shouldShareOneFingerprintWhetherABeanWasCalledByANativeOrAGeneratedReflectionAccessor() {
        // a bean method that throws, called by Camel through reflection: the JVM swaps its accessor after 15 calls
        IllegalStateException early = beanFailure("jdk.internal.reflect.NativeMethodAccessorImpl", "invoke0",
                "jdk.internal.reflect.NativeMethodAccessorImpl");
        IllegalStateException later = beanFailure("jdk.internal.reflect.GeneratedMethodAccessor8", "invoke",
                "jdk.internal.reflect.DelegatingMethodAccessorImpl");
        IllegalStateException viaLambda = beanFailure("org.ingestquarantine.pipeline.Stages$$Lambda$412/0x0000000800c41a38",
                "apply", "java.lang.invoke.LambdaForm$DMH/0x0000000800c44000");

        assertThat(ErrorFingerprint.of(early)).isEqualTo(ErrorFingerprint.of(later)).isEqualTo(ErrorFingerprint.of(viaLambda));
        assertThat(ErrorFingerprint.of(early)).as("the place still counts")
                .isNotEqualTo(ErrorFingerprint.of(failure(IllegalStateException.class, "x", 1)));
    }

    private static IllegalStateException beanFailure(String accessor, String method, String next) {
        IllegalStateException e = new IllegalStateException("the document has 0 bytes");
        e.setStackTrace(new StackTraceElement[] {
                new StackTraceElement("org.ingestquarantine.ingest.Preflight", "check", "Preflight.java", 40),
                new StackTraceElement(accessor, method, null, -1),
                new StackTraceElement(next, "invoke", null, -1),
                new StackTraceElement("java.lang.reflect.Method", "invoke", "Method.java", 568),
                new StackTraceElement("org.apache.camel.support.ObjectHelper", "invokeMethodSafe", "ObjectHelper.java", 364),
                new StackTraceElement("org.apache.camel.component.bean.MethodInfo", "invoke", "MethodInfo.java", 481)});
        return e;
    }

    @Test
    void shouldUseTheRootCauseSoWrappingDoesNotMatter() {
        IOException root = failure(IOException.class, "x", 1);
        RuntimeException wrapped = new RuntimeException("outer", new IllegalStateException("middle", root));

        assertThat(ErrorFingerprint.of(wrapped)).isEqualTo(ErrorFingerprint.of(root));
    }

    @Test
    void shouldFingerprintARemoteCauseLikeTheSameFailureInProcess() {
        IOException local = failure(IOException.class, "x", 1);
        RemoteCause remote = new RemoteCause(IOException.class.getName(), "other message", local.getStackTrace());

        assertThat(ErrorFingerprint.of(new RuntimeException(remote))).isEqualTo(ErrorFingerprint.of(local));
        assertThat(ErrorFingerprint.typeName(remote)).isEqualTo("java.io.IOException");
    }

    @Test
    void shouldCutCauseCycles() {
        IllegalStateException a = new IllegalStateException("a");
        IllegalArgumentException b = new IllegalArgumentException("b", a);
        a.initCause(b);

        assertThat(ErrorFingerprint.of(a)).hasSize(16);
    }

    @Test
    void shouldGiveTheSameFingerprintFromTheEvidenceAsFromTheException() {
        IOException io = failure(IOException.class, "x", 1);
        Refusal refusal = refusal("too_large");

        assertThat(ErrorFingerprint.of(io.getClass().getName(), io.getStackTrace(), null)).isEqualTo(ErrorFingerprint.of(io));
        assertThat(ErrorFingerprint.of(Refusal.class.getName(), refusal.getStackTrace(), "too_large"))
                .isEqualTo(ErrorFingerprint.of(new RuntimeException(refusal)));
    }

    @Test
    void shouldTellWhichVersionComputedAStoredFingerprint() throws Exception {
        Refusal empty = refusal("empty");
        StackTraceElement[] frames = empty.getStackTrace();
        String type = Refusal.class.getName();
        // version 1, as ErrorFingerprint computed it before the reason joined the key (commit a2c6c4f's parent)
        String v1 = sha256Prefix(type + "\n" + frames[0].getClassName() + "." + frames[0].getMethodName()
                + "\n" + frames[1].getClassName() + "." + frames[1].getMethodName()
                + "\n" + frames[2].getClassName() + "." + frames[2].getMethodName());

        assertThat(ErrorFingerprint.VERSION).isEqualTo(2);
        assertThat(ErrorFingerprint.versionOf(ErrorFingerprint.of(empty), type, frames, "empty")).hasValue(2);
        assertThat(ErrorFingerprint.versionOf(v1, type, frames, "empty")).hasValue(1);
        assertThat(v1).as("version 1 left the reason out").isNotEqualTo(ErrorFingerprint.of(empty));
        assertThat(ErrorFingerprint.versionOf(v1, type, frames, null)).as("not Reasoned: the same in both")
                .hasValue(2);
        assertThat(ErrorFingerprint.versionOf("0123456789abcdef", type, frames, "empty")).isEqualTo(OptionalInt.empty());
    }

    @Test
    void shouldKnowVersionOneAlsoAsItCountedThePlumbingFrames() throws Exception {
        IllegalStateException early = beanFailure("jdk.internal.reflect.NativeMethodAccessorImpl", "invoke0",
                "jdk.internal.reflect.NativeMethodAccessorImpl");
        StackTraceElement[] frames = early.getStackTrace();
        // before 2026-12-01 the accessor's frames counted: Preflight.check and the two reflection frames
        String counted = sha256Prefix(IllegalStateException.class.getName()
                + "\norg.ingestquarantine.ingest.Preflight.check"
                + "\njdk.internal.reflect.NativeMethodAccessorImpl.invoke0"
                + "\njdk.internal.reflect.NativeMethodAccessorImpl.invoke");

        assertThat(ErrorFingerprint.versionOf(counted, IllegalStateException.class.getName(), frames, null)).hasValue(1);
        assertThat(ErrorFingerprint.of(early)).isNotEqualTo(counted);
    }

    /** A Reasoned exception as the HEAD's refusals are. */
    static final class Refusal extends RuntimeException implements Reasoned {
        private final String reason;

        Refusal(String reason) {
            super("refused");
            this.reason = reason;
        }

        @Override
        public String reasonCode() {
            return reason;
        }
    }

    private static Refusal refusal(String reason) {
        Refusal r = new Refusal(reason);
        r.setStackTrace(new StackTraceElement[] {
                new StackTraceElement("org.ingestquarantine.ingest.Preflight", "refuse", "Preflight.java", 90),
                new StackTraceElement("org.ingestquarantine.ingest.Preflight", "check", "Preflight.java", 40),
                new StackTraceElement("org.apache.camel.component.bean.MethodInfo", "invoke", "MethodInfo.java", 481),
                new StackTraceElement("org.apache.camel.processor.Pipeline", "process", "Pipeline.java", 163)});
        return r;
    }

    private static String sha256Prefix(String key) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)))
                .substring(0, 16);
    }

    private static IllegalStateException parse(String input) {
        try {
            throw new IllegalStateException("cannot parse " + input);
        } catch (IllegalStateException e) {
            return e;
        }
    }

    private static <T extends Throwable> T failure(Class<T> type, String message, int line) {
        try {
            T t = type.getConstructor(String.class).newInstance(message);
            t.setStackTrace(new StackTraceElement[] {
                    new StackTraceElement("org.apache.pdfbox.pdfparser.BaseParser", "readObject", "BaseParser.java", line),
                    new StackTraceElement("org.apache.pdfbox.pdfparser.COSParser", "parseObject", "COSParser.java", line + 1),
                    new StackTraceElement("org.apache.pdfbox.Loader", "loadPDF", "Loader.java", line + 2),
                    new StackTraceElement("org.ingestquarantine.parse.Worker", "run", "Worker.java", line + 3)});
            return t;
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
