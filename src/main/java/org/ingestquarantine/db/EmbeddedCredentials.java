package org.ingestquarantine.db;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.Properties;

/**
 * The embedded server's two passwords: its superuser's ({@value EmbeddedPostgresService#SUPERUSER}, for this class's
 * own set-up only) and the application role's ({@value EmbeddedPostgresService#USER}), each 32 random bytes,
 * generated once per data folder and kept in {@value #FILE} inside it, readable by its owner only (mode 600; the
 * server's folder itself is 700). {@link #toString()} names neither.
 *
 * @param superuserPassword the superuser's password
 * @param appPassword the application role's password
 */
public record EmbeddedCredentials(String superuserPassword, String appPassword) {

    /** The file's name in the server's folder: {@value}. */
    public static final String FILE = "iq-credentials.properties";

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int SECRET_BYTES = 32;

    /** @return two new passwords (URL-safe Base64, so any client and file takes them as they are) */
    static EmbeddedCredentials generate() {
        return new EmbeddedCredentials(secret(), secret());
    }

    private static String secret() {
        byte[] b = new byte[SECRET_BYTES];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /**
     * @param file a credentials file, e.g. {@code <server folder>/}{@value #FILE}
     * @return what it holds; empty when there is no such file or it lacks a password
     * @throws UncheckedIOException if it exists but cannot be read
     */
    public static Optional<EmbeddedCredentials> read(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        String superuser = p.getProperty("superuser-password", "");
        String app = p.getProperty("app-password", "");
        return superuser.isEmpty() || app.isEmpty() ? Optional.empty() : Optional.of(new EmbeddedCredentials(superuser, app));
    }

    /**
     * Writes them to {@code file}, mode 600, atomically (a temporary file beside it, moved over it).
     *
     * @param file where
     * @throws UncheckedIOException if it cannot be written
     */
    void write(Path file) {
        Properties p = new Properties();
        p.setProperty("superuser-password", superuserPassword);
        p.setProperty("app-password", appPassword);
        OwnerOnlyFiles.writeProperties(file, p, "the embedded PostgreSQL's passwords (db/EmbeddedCredentials); keep"
                + " this file private");
    }

    @Override
    public String toString() {
        return "EmbeddedCredentials[two passwords, not shown]";
    }
}
