package org.ingestquarantine.db;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;

/**
 * Who may connect to the embedded server: only a role that proves its password (scram-sha-256), over TCP on
 * loopback or the server's Unix socket alike ({@link #HBA}, the server's {@code pg_hba.conf}); the application as
 * {@value EmbeddedPostgresService#USER}, no superuser, owning its database {@value EmbeddedPostgresService#DATABASE},
 * the schema {@code public} and everything in it.
 */
final class EmbeddedAccess {

    /** The server's {@code pg_hba.conf}: every local connection, by socket or TCP, proves its role's password. */
    static final String HBA = """
            # written by ingest-quarantine (db/EmbeddedAccess): every connection proves its role's password;
            # the passwords are in iq-credentials.properties (mode 600) beside this file
            local   all   all                  scram-sha-256
            host    all   all   127.0.0.1/32   scram-sha-256
            host    all   all   ::1/128        scram-sha-256
            """;

    /**
     * Gives everything in the schema {@code public} not yet the application role's to it: the tables (their indexes,
     * triggers and owned sequences with them), views, other sequences, functions and types a folder made before the
     * role existed holds (all the superuser's then). Nothing on a new folder.
     */
    private static final String OWN_EVERYTHING = """
            DO $$
            DECLARE r record;
            BEGIN
              FOR r IN SELECT c.oid::regclass AS obj, c.relkind FROM pg_class c
                       WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
                         AND c.relowner <> '%1$s'::regrole
                         AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                                  AND d.objid = c.oid AND d.deptype IN ('a', 'i')))
              LOOP
                EXECUTE format('ALTER %%s %%s OWNER TO %1$s', CASE r.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW'
                    WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, r.obj);
              END LOOP;
              FOR r IN SELECT p.oid::regprocedure AS obj, p.prokind FROM pg_proc p
                       WHERE p.pronamespace = 'public'::regnamespace AND p.proowner <> '%1$s'::regrole
              LOOP
                EXECUTE format('ALTER %%s %%s OWNER TO %1$s', CASE r.prokind WHEN 'p' THEN 'PROCEDURE'
                    WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END, r.obj);
              END LOOP;
              FOR r IN SELECT t.oid::regtype AS obj FROM pg_type t
                       WHERE t.typnamespace = 'public'::regnamespace AND t.typowner <> '%1$s'::regrole
                         AND t.typtype IN ('c', 'e', 'd', 'r')
                         AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
              LOOP
                EXECUTE format('ALTER TYPE %%s OWNER TO %1$s', r.obj);
              END LOOP;
            END $$""".formatted(EmbeddedPostgresService.USER);

    private EmbeddedAccess() {
    }

    /**
     * @param dataDirectory the server's folder
     * @return whether its {@code pg_hba.conf} is {@link #HBA} already
     */
    static boolean hbaWritten(Path dataDirectory) throws IOException {
        Path hba = dataDirectory.resolve("pg_hba.conf");
        return Files.isRegularFile(hba) && Files.readString(hba, StandardCharsets.UTF_8).equals(HBA);
    }

    /**
     * Writes {@link #HBA} over the folder's {@code pg_hba.conf} (atomically); a running server reads it on
     * {@link #reload}, a stopped one at its start.
     *
     * @param dataDirectory the server's folder
     */
    static void writeHba(Path dataDirectory) throws IOException {
        OwnerOnlyFiles.writeString(dataDirectory.resolve("pg_hba.conf"), HBA);
    }

    /**
     * As the superuser, in one transaction: sets both passwords (hashed by the driver, so no password crosses the
     * wire or reaches a log), creates the application role if missing (login, no superuser, no role or database
     * creation) and gives it the database, the schema {@code public} and all in it.
     *
     * @param port the running server's port
     * @param credentials the passwords to set; the superuser's is also the one connected with (ignored while the
     *     folder still trusts local connections, as one made before passwords did)
     */
    static void setUpRoles(int port, EmbeddedCredentials credentials) throws SQLException {
        try (Connection c = asSuperuser(port, credentials); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            PGConnection pg = c.unwrap(PGConnection.class);
            pg.alterUserPassword(EmbeddedPostgresService.SUPERUSER, credentials.superuserPassword().toCharArray(),
                    "scram-sha-256");
            boolean exists;
            try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_roles WHERE rolname = '" + EmbeddedPostgresService.USER
                    + "'")) {
                exists = rs.next();
            }
            String role = EmbeddedPostgresService.USER;
            s.execute((exists ? "ALTER" : "CREATE") + " ROLE " + role
                    + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS");
            pg.alterUserPassword(role, credentials.appPassword().toCharArray(), "scram-sha-256");
            s.execute("ALTER DATABASE " + EmbeddedPostgresService.DATABASE + " OWNER TO " + role);
            s.execute("ALTER SCHEMA public OWNER TO " + role);
            s.execute(OWN_EVERYTHING);
            c.commit();
        }
    }

    /**
     * Makes the running server read its {@code pg_hba.conf} again.
     *
     * @param port the running server's port
     * @param credentials the superuser's password
     */
    static void reload(int port, EmbeddedCredentials credentials) throws SQLException {
        try (Connection c = asSuperuser(port, credentials); Statement s = c.createStatement()) {
            s.execute("SELECT pg_reload_conf()");
        }
    }

    private static Connection asSuperuser(int port, EmbeddedCredentials credentials) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://localhost:" + port + "/" + EmbeddedPostgresService.DATABASE,
                EmbeddedPostgresService.SUPERUSER, credentials.superuserPassword());
    }
}
