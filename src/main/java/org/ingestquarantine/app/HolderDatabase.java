package org.ingestquarantine.app;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;
import org.ingestquarantine.db.OwnerOnlyFiles;

/**
 * How to reach the database of the process that holds a data folder ({@link DataDirLock}), published by it in
 * {@code <data-dir>/}{@value #FILE} once its embedded PostgreSQL answers, so that operator commands and
 * {@code serve} on that folder connect to it instead of refusing ({@link DataDirClaim}). The file holds the
 * holder's pid, the JDBC URL, the application's role and its password (the embedded server asks every
 * connection for its role's password), is readable by its owner only (mode 600) and is written atomically (a temporary file moved over
 * it), so a reader sees all of it or nothing. Closing removes it; a holder killed with SIGKILL leaves it behind,
 * and readers ignore it then because its pid is no longer the folder's live holder.
 */
public final class HolderDatabase implements AutoCloseable {

    /** The file's name in the data folder: {@value}. */
    public static final String FILE = ".database";

    private final Path file;

    private HolderDatabase(Path file) {
        this.file = file;
    }

    /**
     * What a holder published. {@link #toString()} leaves the password out.
     *
     * @param pid the holder's process id
     * @param jdbcUrl where its database listens
     * @param user the database user
     * @param password the user's password, may be empty
     */
    public record Notice(long pid, String jdbcUrl, String user, String password) {

        @Override
        public String toString() {
            return "pid " + pid + ", " + jdbcUrl + ", user " + user;
        }
    }

    /**
     * Publishes this process's database for the data folder it holds.
     *
     * @param dataDir the data folder this process holds
     * @param jdbcUrl its database's JDBC URL
     * @param user the database user
     * @param password the user's password, may be empty
     * @return the published file; close it to remove it (before the database stops)
     * @throws UncheckedIOException if the file cannot be written
     */
    static HolderDatabase publish(Path dataDir, String jdbcUrl, String user, String password) {
        Path file = dataDir.resolve(FILE);
        Properties p = new Properties();
        p.setProperty("pid", Long.toString(ProcessHandle.current().pid()));
        p.setProperty("jdbc-url", jdbcUrl);
        p.setProperty("user", user);
        p.setProperty("password", password);
        OwnerOnlyFiles.writeProperties(file, p, "the database of the ingest-quarantine process holding this data folder");
        return new HolderDatabase(file);
    }

    /**
     * @param dataDir a data folder
     * @return what its file says, whoever wrote it and whether that process still lives; empty when there is no
     *     file or it is incomplete
     */
    static Optional<Notice> read(Path dataDir) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(dataDir.resolve(FILE), StandardCharsets.UTF_8)) {
            p.load(r);
            String url = p.getProperty("jdbc-url");
            String user = p.getProperty("user");
            if (url == null || user == null) {
                return Optional.empty();
            }
            return Optional.of(new Notice(Long.parseLong(p.getProperty("pid", "").strip()), url, user,
                    p.getProperty("password", "")));
        } catch (IOException | IllegalArgumentException e) { // a malformed pid or escape: not a notice
            return Optional.empty();
        }
    }

    /** Removes the file, so that no operator connects to a database about to stop. */
    @Override
    public void close() throws IOException {
        Files.deleteIfExists(file);
    }
}
