package org.ingestquarantine.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import org.ingestquarantine.parse.ParserVersion;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code --version}: the build's Maven version (from the {@code pom.properties} the Maven JAR plugin writes
 * into the jar; {@code unknown} when running from classes without it) and the parser version that new
 * quarantine records are stamped with ({@link ParserVersion#CURRENT}).
 */
final class BuildVersion implements IVersionProvider {
    /** Written by maven-jar-plugin (addMavenDescriptor, on by default). */
    static final String POM_PROPERTIES = "/META-INF/maven/org.ingestquarantine/ingest-quarantine/pom.properties";

    @Override
    public String[] getVersion() {
        return new String[] {"ingest-quarantine " + projectVersion(), "parser " + ParserVersion.CURRENT};
    }

    /** @return the project version, or {@code unknown} when the jar's Maven descriptor is absent */
    static String projectVersion() {
        try (InputStream in = BuildVersion.class.getResourceAsStream(POM_PROPERTIES)) {
            if (in == null) {
                return "unknown";
            }
            Properties props = new Properties();
            props.load(in);
            return props.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
