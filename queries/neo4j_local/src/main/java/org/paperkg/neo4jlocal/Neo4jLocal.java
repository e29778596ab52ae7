package org.paperkg.neo4jlocal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.ByteUnit;

/**
 * Runs Neo4j Community 5.26 embedded with a Bolt connector on 127.0.0.1 and authentication on.
 *
 * <pre>
 *   NEO4J_PASSWORD=... java -Xmx1g -jar neo4j-local.jar [--port 7687] [--data-dir DIR] [--page-cache 64m]
 * </pre>
 *
 * <p>The data dir is the Neo4j home: stores go to {@code DIR/data}, Neo4j's own logs to
 * {@code DIR/logs}. The password of user {@code neo4j} is taken from {@code NEO4J_PASSWORD} on
 * every start: on the first start it replaces Neo4j's initial one, and on a later start with a
 * different value it replaces the stored one (the environment is the single source of truth).
 *
 * <p>Prints one line {@code NEO4J-LOCAL READY bolt://127.0.0.1:PORT ...} to stdout once Bolt is
 * listening and the password is in place; shuts the DBMS down cleanly on SIGTERM/SIGINT.
 * Exit codes: 0 after a clean shutdown, 2 for bad usage or configuration, 1 when Neo4j fails.
 */
public final class Neo4jLocal {

    static final String HOST = "127.0.0.1";
    static final int MIN_PASSWORD_LENGTH = 8;

    private Neo4jLocal() {}

    public static void main(String[] args) {
        Options opts;
        try {
            opts = Options.parse(args);
        } catch (IllegalArgumentException e) {
            fail(2, e.getMessage() + "\n" + Options.USAGE);
            return;
        }
        if (opts.help) {
            System.out.println(Options.USAGE);
            return;
        }
        String password = System.getenv("NEO4J_PASSWORD");
        if (password == null || password.isEmpty()) {
            fail(2, "NEO4J_PASSWORD is not set: export the password for user 'neo4j' "
                    + "(at least " + MIN_PASSWORD_LENGTH + " characters) before starting.");
            return;
        }
        if (password.length() < MIN_PASSWORD_LENGTH) {
            fail(2, "NEO4J_PASSWORD is " + password.length() + " characters long; Neo4j 5 needs at least "
                    + MIN_PASSWORD_LENGTH + ".");
            return;
        }
        Path dataDir = opts.dataDir.toAbsolutePath().normalize();
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            fail(2, "cannot create data dir " + dataDir + ": " + e);
            return;
        }
        if (!Files.isWritable(dataDir)) {
            fail(2, "data dir " + dataDir + " is not writable");
            return;
        }

        long t0 = System.nanoTime();
        DatabaseManagementService dbms;
        try {
            dbms = new DatabaseManagementServiceBuilder(dataDir)
                    .setConfig(BoltConnector.enabled, true)
                    .setConfig(BoltConnector.listen_address, new SocketAddress(HOST, opts.port))
                    .setConfig(BoltConnector.advertised_address, new SocketAddress(HOST, opts.port))
                    .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                    .setConfig(HttpConnector.enabled, false)
                    .setConfig(HttpsConnector.enabled, false)
                    .setConfig(GraphDatabaseSettings.default_listen_address, new SocketAddress(HOST))
                    .setConfig(GraphDatabaseSettings.auth_enabled, true)
                    .setConfig(GraphDatabaseSettings.auth_minimum_password_length, MIN_PASSWORD_LENGTH)
                    .setConfig(GraphDatabaseSettings.pagecache_memory, opts.pageCacheBytes)
                    .setConfig(GraphDatabaseSettings.logs_directory, dataDir.resolve("logs"))
                    .setConfig(GraphDatabaseSettings.udc_enabled, false)
                    // A dev/test server: no 256 MiB preallocated transaction log files per database.
                    .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                    .setConfig(GraphDatabaseSettings.logical_log_rotation_threshold, ByteUnit.mebiBytes(64))
                    .setConfig(GraphDatabaseSettings.keep_logical_logs, "2 files")
                    .setConfig(GraphDatabaseSettings.shutdown_transaction_end_timeout, Duration.ofSeconds(5))
                    // Bolt waits 5 s twice on shutdown by default (idle thread pool, idle connections).
                    .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofSeconds(1))
                    .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofSeconds(1))
                    .build();
        } catch (Throwable e) {
            fail(1, "Neo4j failed to start (port " + opts.port + ", data dir " + dataDir + "): "
                    + rootMessage(e) + hint(e, opts.port));
            return;
        }

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("NEO4J-LOCAL STOPPING");
            System.out.flush();
            try {
                dbms.shutdown();
            } catch (Throwable e) {
                System.err.println("NEO4J-LOCAL ERROR during shutdown: " + e);
            }
            System.out.println("NEO4J-LOCAL STOPPED");
            System.out.flush();
            stopped.countDown();
        }, "neo4j-local-shutdown"));

        try {
            setPassword(dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME), password);
            // Touch the default database so the first client query does not pay for its start.
            dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).executeTransactionally("RETURN 1");
        } catch (Throwable e) {
            System.err.println("NEO4J-LOCAL ERROR could not set the password of user 'neo4j': " + rootMessage(e));
            System.err.flush();
            System.exit(1); // runs the shutdown hook
            return;
        }

        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("NEO4J-LOCAL READY bolt://" + HOST + ":" + opts.port + " data-dir=" + dataDir
                + " pid=" + ProcessHandle.current().pid() + " startup-ms=" + ms);
        System.out.flush();

        try {
            stopped.await(); // until SIGTERM/SIGINT runs the hook
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sets the password of {@code neo4j}; a password equal to the stored one is left as it is. */
    static void setPassword(GraphDatabaseService system, String password) {
        try {
            system.executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));
            System.out.println("NEO4J-LOCAL password of user 'neo4j' set from NEO4J_PASSWORD");
        } catch (RuntimeException e) {
            String msg = String.valueOf(rootMessage(e)).toLowerCase(Locale.ROOT);
            if (!msg.contains("cannot be the same")) {
                throw e;
            }
            // Same password as stored: nothing to change. Make sure no change is pending.
            system.executeTransactionally("ALTER USER neo4j SET PASSWORD CHANGE NOT REQUIRED");
            System.out.println("NEO4J-LOCAL password of user 'neo4j' unchanged");
        }
    }

    private static String hint(Throwable e, int port) {
        String all = String.valueOf(rootMessage(e)).toLowerCase(Locale.ROOT);
        if (all.contains("address already in use") || all.contains("bind")) {
            return " (is port " + port + " already in use? pick another with --port)";
        }
        if (all.contains("lock")) {
            return " (is another Neo4j already running on this data dir?)";
        }
        return "";
    }

    private static String rootMessage(Throwable e) {
        StringBuilder sb = new StringBuilder();
        Throwable t = e;
        int depth = 0;
        while (t != null && depth++ < 8) {
            if (sb.length() > 0) {
                sb.append(" <- ");
            }
            sb.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
            if (t.getCause() == t) {
                break;
            }
            t = t.getCause();
        }
        return sb.toString();
    }

    private static void fail(int code, String message) {
        System.err.println("NEO4J-LOCAL ERROR " + message);
        System.err.flush();
        System.exit(code);
    }

    /** Command-line options. */
    static final class Options {
        static final String USAGE = "usage: NEO4J_PASSWORD=... java -jar neo4j-local.jar "
                + "[--port PORT (default 7687)] [--data-dir DIR (default ./neo4j-data)] "
                + "[--page-cache SIZE (default 64m)]";

        int port = 7687;
        Path dataDir = Path.of("neo4j-data");
        long pageCacheBytes = ByteUnit.mebiBytes(64);
        boolean help;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                String value = null;
                int eq = a.indexOf('=');
                if (a.startsWith("--") && eq > 0) {
                    value = a.substring(eq + 1);
                    a = a.substring(0, eq);
                }
                switch (a) {
                    case "-h":
                    case "--help":
                        o.help = true;
                        break;
                    case "--port": {
                        String v = value != null ? value : next(args, ++i, a);
                        try {
                            o.port = Integer.parseInt(v);
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException("--port: not a number: '" + v + "'");
                        }
                        if (o.port < 1 || o.port > 65535) {
                            throw new IllegalArgumentException("--port: " + o.port + " is not in 1..65535");
                        }
                        break;
                    }
                    case "--data-dir":
                        o.dataDir = Path.of(value != null ? value : next(args, ++i, a));
                        break;
                    case "--page-cache": {
                        String v = value != null ? value : next(args, ++i, a);
                        try {
                            o.pageCacheBytes = ByteUnit.parse(v);
                        } catch (RuntimeException e) {
                            throw new IllegalArgumentException("--page-cache: not a size: '" + v + "' (e.g. 64m)");
                        }
                        break;
                    }
                    default:
                        throw new IllegalArgumentException("unknown argument: '" + args[i] + "'");
                }
            }
            return o;
        }

        private static String next(String[] args, int i, String name) {
            if (i >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            return args[i];
        }
    }
}
