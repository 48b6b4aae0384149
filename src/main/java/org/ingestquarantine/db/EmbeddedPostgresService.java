package org.ingestquarantine.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A real PostgreSQL server (zonky embedded binaries) run as a child process, its data kept in a folder.
 *
 * <p>The data folder survives {@link #stop()} and a JVM restart: a later start on the same folder sees
 * every committed row. {@link #start()} after {@link #stop()} brings the server back on the SAME port and
 * folder, so a {@link Database} pool built on {@link #jdbcUrl()} reconnects by itself; tests use this to
 * stop the database mid-run.
 *
 * <p>Defaults: folder {@link #DEFAULT_DATA_DIRECTORY}, a free port chosen at the first start, database
 * {@value #DATABASE}. Access ({@link EmbeddedAccess}): every connection, over loopback TCP or the Unix socket,
 * proves its role's password (scram-sha-256); the application connects as {@value #USER}, no superuser, owner of
 * the database and all in it, with the password {@link #password()} (both passwords generated at the folder's first
 * start into {@value EmbeddedCredentials#FILE} in it, mode 600: {@link EmbeddedCredentials}). So another user of
 * the machine cannot connect. A folder made before passwords (its {@code pg_hba.conf} trusting every local
 * connection) is secured at its next start: the role made and given everything, the passwords set, then the
 * {@code pg_hba.conf} above written and re-read.
 * Commits are durable: {@code synchronous_commit=on} and {@code fsync=on}, overriding zonky's test defaults
 * (it starts the server with {@code -F}, fsync off), so a committed outcome, after which the broker's message is
 * acknowledged, survives a crash of the server AND of the machine (power loss), not only the former. The cost is
 * the disk's flush per commit (about 2.3 ms measured with {@code fdatasync} on this project's 2-core VMs), which
 * the pipeline's two commits per document hardly notice.
 *
 * <p>JVM exit: zonky registers a JVM shutdown hook per server that stops it, which would stop PostgreSQL while
 * the application is still finishing its documents (JVM shutdown hooks run concurrently, in no order). A
 * server started with {@code stopOnJvmExit = false} disarms that hook: it stops only when {@link #stop()} is
 * called, by its owner, last (the application's one shutdown path, {@code AppConfiguration}). A JVM killed
 * without that leaves the server running; the next {@link #start()} on the folder stops it first.
 */
public final class EmbeddedPostgresService implements AutoCloseable {

    /** The server's folder inside an application data folder ({@code --data-dir}): {@value}. */
    public static final String FOLDER_IN_DATA_DIR = "postgres";
    /** Data folder used when none is given: {@code ./data/postgres}. */
    public static final Path DEFAULT_DATA_DIRECTORY = folderIn(Path.of("data"));
    /**
     * @param applicationDataDir an application data folder ({@code --data-dir}), e.g. {@code data}
     * @return the embedded server's folder in it, {@code <applicationDataDir>/}{@value #FOLDER_IN_DATA_DIR}
     */
    public static Path folderIn(Path applicationDataDir) {
        return applicationDataDir.resolve(FOLDER_IN_DATA_DIR);
    }

    /** Superuser created by initdb; only this class connects as it, to set up access. */
    public static final String SUPERUSER = "postgres";
    /** The application's role: no superuser, owner of {@value #DATABASE}. */
    public static final String USER = "ingest_quarantine";
    /** Database the pipeline uses. */
    public static final String DATABASE = "postgres";

    private final Path dataDirectory;
    private final boolean stopOnJvmExit;
    private int port;
    private EmbeddedPostgres server;
    private EmbeddedCredentials credentials;

    private EmbeddedPostgresService(Path dataDirectory, int port, boolean stopOnJvmExit) {
        this.dataDirectory = dataDirectory.toAbsolutePath();
        this.port = port;
        this.stopOnJvmExit = stopOnJvmExit;
    }

    /**
     * Starts a server on {@link #DEFAULT_DATA_DIRECTORY} and a free port.
     *
     * @throws UncheckedIOException if the server does not start
     */
    public static EmbeddedPostgresService startDefault() {
        return start(DEFAULT_DATA_DIRECTORY, 0);
    }

    /**
     * Starts a server keeping its data in {@code dataDirectory} (created and initialised if empty).
     *
     * @param dataDirectory folder for the cluster's files; an existing cluster there is reused as-is
     * @param port TCP port on localhost; 0 picks a free port, which later restarts keep
     * @throws UncheckedIOException if the server does not start (port taken, folder locked by another server)
     */
    public static EmbeddedPostgresService start(Path dataDirectory, int port) {
        return start(dataDirectory, port, true);
    }

    /**
     * Starts a server keeping its data in {@code dataDirectory} (created and initialised if empty).
     *
     * @param dataDirectory folder for the cluster's files; an existing cluster there is reused as-is
     * @param port TCP port on localhost; 0 picks a free port, which later restarts keep
     * @param stopOnJvmExit whether zonky's JVM shutdown hook stops the server; false: only {@link #stop()} does
     * @throws UncheckedIOException if the server does not start (port taken, folder locked by another server)
     */
    public static EmbeddedPostgresService start(Path dataDirectory, int port, boolean stopOnJvmExit) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0 (free port) or 1-65535, was " + port);
        }
        EmbeddedPostgresService service = new EmbeddedPostgresService(dataDirectory, port, stopOnJvmExit);
        service.start();
        return service;
    }

    /**
     * Starts the server again after {@link #stop()}, on the same port and folder. Does nothing if running.
     *
     * @throws UncheckedIOException if the server does not start
     */
    public synchronized void start() {
        if (server != null) {
            return;
        }
        Path passwordFile = null;
        try {
            Files.createDirectories(dataDirectory);
            stopLeftover();
            Path saved = dataDirectory.resolve(EmbeddedCredentials.FILE);
            boolean fresh = !Files.exists(dataDirectory.resolve("postgresql.conf")); // zonky's test for initdb
            Optional<EmbeddedCredentials> kept = fresh ? Optional.empty() : EmbeddedCredentials.read(saved);
            if (kept.isPresent() && !EmbeddedAccess.hbaWritten(dataDirectory)) {
                EmbeddedAccess.writeHba(dataDirectory); // read by the server as it starts
            }
            credentials = kept.or(() -> fresh ? Optional.empty() : EmbeddedCredentials.read(pendingFile()))
                    .orElseGet(EmbeddedCredentials::generate);
            if (kept.isEmpty()) {
                credentials.write(pendingFile()); // a crash before they are saved in the folder does not lose them
            }
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("fsync", "on")  // after zonky's -F on the command line, so it wins
                    .setServerConfig("password_encryption", "scram-sha-256")
                    .setConnectConfig("password", credentials.superuserPassword()); // zonky's readiness probe
            if (fresh) { // initdb's options, after zonky's "-A trust", so they win: no moment of trust
                passwordFile = OwnerOnlyFiles.ownerOnly(Files.createTempFile(dataDirectory.getParent(),
                        ".iq-initdb", ".tmp"));
                Files.writeString(passwordFile, credentials.superuserPassword() + "\n");
                builder.setLocaleConfig("auth", "scram-sha-256").setLocaleConfig("pwfile", passwordFile.toString());
            }
            if (port != 0) {
                builder.setPort(port);
            }
            server = builder.start();
            port = server.getPort();
            if (!stopOnJvmExit) {
                exitHookClosed(server).set(true);
            }
            if (kept.isEmpty()) {
                secure(saved);
            }
        } catch (IOException | java.sql.SQLException e) {
            throw new UncheckedIOException("embedded PostgreSQL did not start in " + dataDirectory
                    + (port == 0 ? "" : " on port " + port) + ": " + e.getMessage(),
                    e instanceof IOException io ? io : new IOException(e));
        } finally {
            if (passwordFile != null) {
                try {
                    Files.deleteIfExists(passwordFile);
                } catch (IOException ignored) {
                    // a temporary file of the owner's only
                }
            }
        }
    }

    /**
     * A new folder, or one made before passwords: sets up the roles on the running server, then saves the passwords
     * in the folder, then writes and re-reads its {@code pg_hba.conf}, in that order, so that a crash at any step
     * is finished by the next start.
     */
    private void secure(Path saved) throws IOException, java.sql.SQLException {
        EmbeddedAccess.setUpRoles(port, credentials);
        credentials.write(saved);
        EmbeddedAccess.writeHba(dataDirectory);
        EmbeddedAccess.reload(port, credentials);
        Files.deleteIfExists(pendingFile());
    }

    /** @return where the passwords wait, beside the folder, until the folder is set up to keep them */
    private Path pendingFile() {
        return dataDirectory.resolveSibling("." + dataDirectory.getFileName() + "." + EmbeddedCredentials.FILE);
    }

    /**
     * A process killed with SIGKILL leaves its embedded server running, holding this folder. The caller
     * owns the folder (the data folder's lock), so a server still named in {@code postmaster.pid} is that
     * orphan: it is asked to stop (SIGTERM, PostgreSQL's "smart" shutdown keeps committed data), then
     * killed if it has not gone within 10 s.
     */
    private void stopLeftover() throws IOException {
        Path pidFile = dataDirectory.resolve("postmaster.pid");
        if (!Files.isRegularFile(pidFile)) {
            return;
        }
        String first = Files.readAllLines(pidFile).stream().findFirst().orElse("").trim();
        long pid;
        try {
            pid = Long.parseLong(first);
        } catch (NumberFormatException e) {
            return;
        }
        java.util.Optional<ProcessHandle> orphan = ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(p -> p.info().command().map(c -> c.endsWith("postgres")).orElse(false));
        if (orphan.isEmpty()) {
            return;
        }
        org.slf4j.LoggerFactory.getLogger(EmbeddedPostgresService.class)
                .warn("stopping the embedded PostgreSQL (pid {}) that a killed run left in {}", pid, dataDirectory);
        ProcessHandle p = orphan.get();
        p.destroy();
        try {
            p.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            p.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException(e.getCause());
        }
    }

    /**
     * Stops the server (fast shutdown: open connections are cut, committed data is kept). Does nothing if
     * already stopped.
     *
     * @throws UncheckedIOException if the server does not stop cleanly
     */
    public synchronized void stop() {
        if (server == null) {
            return;
        }
        try {
            if (!stopOnJvmExit) {
                exitHookClosed(server).set(false);
            }
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL did not stop cleanly: " + e.getMessage(), e);
        } finally {
            server = null;
        }
    }

    /**
     * zonky 2.1's server registers {@code Runtime.addShutdownHook(new Thread(this::close))} unconditionally and keeps
     * no reference to that thread, so the hook cannot be removed; its {@code close()} returns at once while the
     * private flag {@code closed} is set. Setting it disarms the hook; clearing it again lets {@link #stop()} close.
     *
     * @throws IllegalStateException when the field is not there (another zonky version): the build must not ship
     *     an application whose database stops before its consumers
     */
    private static java.util.concurrent.atomic.AtomicBoolean exitHookClosed(EmbeddedPostgres server) {
        try {
            java.lang.reflect.Field closed = EmbeddedPostgres.class.getDeclaredField("closed");
            closed.setAccessible(true);
            return (java.util.concurrent.atomic.AtomicBoolean) closed.get(server);
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException("cannot disarm the embedded PostgreSQL's JVM shutdown hook (zonky's"
                    + " EmbeddedPostgres.closed flag); check the zonky version", e);
        }
    }

    /** @return whether the server is running (started and not stopped) */
    public synchronized boolean isRunning() {
        return server != null;
    }

    /** @return {@code jdbc:postgresql://localhost:<port>/postgres}; stays valid across stop and start */
    public String jdbcUrl() {
        return "jdbc:postgresql://localhost:" + port + "/" + DATABASE;
    }

    /** @return the application's database role, {@value #USER} */
    public String user() {
        return USER;
    }

    /** @return its password ({@value EmbeddedCredentials#FILE} in the folder) */
    public String password() {
        return credentials.appPassword();
    }

    /** @return the TCP port the server listens on */
    public int port() {
        return port;
    }

    /** @return the absolute data folder */
    public Path dataDirectory() {
        return dataDirectory;
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }
}
