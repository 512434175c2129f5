package io.github.redislock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One real {@code redis-server} process listening on {@code 127.0.0.1} and a free port, for tests
 * and benchmarks.
 *
 * <p>Why a real process rather than a mock or a container: the library relies on Lua scripts,
 * key expiry, pub/sub and command statistics, and fault tests need to kill, restart and freeze the
 * server at exact moments, which is cheap and deterministic with a local process. The binary
 * comes from {@link RedisBinary}.
 *
 * <p>The server runs without persistence ({@code --save "" --appendonly no}) in its own temporary
 * directory, so {@link #restart()} always comes back with an empty dataset. Its stdout/stderr go to
 * {@link #logFile()}, and the last lines of that log are included in every startup failure.
 *
 * <p>Processes never outlive the JVM: a shutdown hook destroys them and, on Unix, a watcher process
 * ends a server whose JVM was SIGKILLed. Still, always {@link #stop()} (or {@link #close()}) what you
 * start.
 *
 * <p>The helpers {@link #command(String...)}, {@link #info(String)} and {@link #commandCount(String)}
 * speak RESP over a plain socket, so this class needs nothing but the JDK (no Spring, no Lettuce).
 * They authenticate automatically with the password given as {@code --requirepass} (or set via
 * {@link #useCredentials(String, String)}), acting as an administrator's back door.
 */
public final class RedisServerProcess implements AutoCloseable {

    /** The only address the server binds to. */
    public static final String HOST = "127.0.0.1";

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration PROBE_CONNECT_TIMEOUT = Duration.ofMillis(250);
    private static final Duration PROBE_READ_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);
    private static final int MAX_PORT_ATTEMPTS = 10;
    private static final String BIND_FAILURE = "Address already in use";

    private final List<String> extraArgs;
    private final boolean clusterEnabled;
    /** Sentinel mode needs a writable config file as the first argument; the directives come as arguments. */
    private final boolean sentinel;
    private final Path workDir;
    private final ServerLog log;
    private volatile int port;
    private volatile String username;
    private volatile String password;
    private volatile Process process;
    private volatile Process watcher;
    private volatile boolean paused;

    private RedisServerProcess(List<String> extraArgs) {
        this.extraArgs = extraArgs;
        this.clusterEnabled = extraArgs.stream().anyMatch("--cluster-enabled"::equalsIgnoreCase);
        this.sentinel = extraArgs.stream().anyMatch("--sentinel"::equalsIgnoreCase);
        this.password = valueAfter(extraArgs, "--requirepass");
        try {
            this.workDir = Files.createTempDirectory("redis-lock-test-redis-");
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not create a temporary directory for redis-server", ex);
        }
        ServerReaper.deleteAtExit(workDir);
        this.log = new ServerLog(workDir.resolve("redis-server.log"));
    }

    /**
     * Starts a new {@code redis-server} on {@code 127.0.0.1} and a free port, and returns once it
     * answers {@code PING}.
     *
     * @param extraArgs further command-line options appended after the defaults, for example
     *     {@code "--requirepass", "secret"} or {@code "--aclfile", path}; with
     *     {@code "--sentinel", "monitor", "mymaster", "127.0.0.1", "6379", "2"} (and further
     *     {@code "--sentinel", ...} directives) the process is a Sentinel; {@code --port} and
     *     {@code --daemonize} are managed here and rejected
     * @throws IllegalStateException if the server does not answer within 10 seconds or exits
     *     (the message includes the end of its log)
     */
    public static RedisServerProcess start(String... extraArgs) {
        List<String> args = List.copyOf(Arrays.asList(extraArgs));
        for (String arg : args) {
            if (arg.equalsIgnoreCase("--port") || arg.equalsIgnoreCase("--daemonize")) {
                throw new IllegalArgumentException(arg + " is managed by RedisServerProcess and cannot be passed");
            }
        }
        RedisServerProcess server = new RedisServerProcess(args);
        server.launchOnFreePort();
        return server;
    }

    /** Always {@code 127.0.0.1}. */
    public String host() {
        return HOST;
    }

    /** The port the server listens on; it stays the same across {@link #restart()}. */
    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:<port>}, without credentials. */
    public String redisUri() {
        return "redis://" + HOST + ":" + port;
    }

    /** The temporary directory the server runs in ({@code --dir}). */
    public Path workDir() {
        return workDir;
    }

    /** The file receiving the server's stdout and stderr (appended to across restarts). */
    public Path logFile() {
        return log.file();
    }

    /**
     * The operating-system pid of the current server process.
     *
     * @throws IllegalStateException if no process has been started or it has been stopped or killed
     */
    public long pid() {
        Process current = process;
        if (current == null) {
            throw new IllegalStateException(this + " has no process (stopped or killed)");
        }
        return current.pid();
    }

    /** Whether the server process is alive (a {@linkplain #pause() paused} server counts as running). */
    public boolean isRunning() {
        Process current = process;
        return current != null && current.isAlive();
    }

    /** Whether {@link #pause()} was called without a following {@link #resume()}. */
    public boolean isPaused() {
        return paused && isRunning();
    }

    /**
     * Sets the credentials {@link #command(String...)} and the other helpers authenticate with,
     * for servers configured through an ACL file. {@code username} may be null for the default user.
     */
    public RedisServerProcess useCredentials(String username, String password) {
        this.username = username;
        this.password = password;
        return this;
    }

    /**
     * Stops the server gracefully: {@code SHUTDOWN NOSAVE} over a socket, then (if it is still
     * alive) SIGTERM, then SIGKILL. A paused server is resumed first. Does nothing if not running.
     */
    public synchronized void stop() {
        Process current = process;
        if (current == null) {
            return;
        }
        try {
            if (current.isAlive()) {
                if (paused) {
                    UnixSignals.send(current, "CONT");
                    paused = false;
                }
                requestShutdown();
                if (!current.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    current.destroy();
                    if (!current.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                        current.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                    }
                }
            }
        }
        catch (InterruptedException ex) {
            current.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        catch (RuntimeException ex) {
            current.destroyForcibly();
            throw ex;
        }
        finally {
            processEnded();
        }
    }

    /** Same as {@link #stop()}, so the server can be used in try-with-resources. */
    @Override
    public void close() {
        stop();
    }

    /**
     * Kills the server like {@code kill -9} (no shutdown, clients see the connection drop) and waits
     * until it is gone. Use {@link #restart()} to bring it back on the same port.
     */
    public synchronized void kill() {
        Process current = process;
        if (current == null) {
            return;
        }
        try {
            current.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        finally {
            processEnded();
        }
    }

    /**
     * Stops the server (if running) and starts it again on the same port with the same arguments.
     * There is no persistence, so the new server has an empty dataset. Works after {@link #kill()}.
     *
     * @throws IllegalStateException if the port cannot be bound again or the server does not answer
     */
    public synchronized void restart() {
        stop();
        Instant deadline = Instant.now().plus(STARTUP_TIMEOUT);
        while (!launch()) {
            // Someone holds our port; it may be a lingering socket, so retry until the deadline.
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("Could not restart redis-server on port " + port
                        + ": the port stayed in use for " + STARTUP_TIMEOUT.toSeconds() + " s. Log tail:\n"
                        + log.tail());
            }
            sleep(100);
        }
    }

    /**
     * Freezes the server with SIGSTOP: it keeps its connections but answers nothing, like a server
     * stuck in a long GC pause or a network partition. Undo with {@link #resume()}. Unix only.
     */
    public synchronized void pause() {
        UnixSignals.send(requireRunning(), "STOP");
        paused = true;
    }

    /** Lets a {@linkplain #pause() paused} server continue with SIGCONT. Unix only. */
    public synchronized void resume() {
        UnixSignals.send(requireRunning(), "CONT");
        paused = false;
    }

    /**
     * Sends one command over a fresh connection and returns the reply: {@link String} for simple
     * and bulk strings, {@link Long} for integers, {@code List<Object>} for arrays, {@code null} for
     * nil. Errors nested inside an array are returned as {@link ErrorReplyException} elements.
     *
     * @throws ErrorReplyException if Redis replies with an error
     * @throws UncheckedIOException if the server cannot be reached or does not reply within 5 s
     */
    public Object command(String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("A command needs at least its name");
        }
        try (RespConnection connection = new RespConnection(HOST, port, COMMAND_TIMEOUT, COMMAND_TIMEOUT)) {
            authenticate(connection);
            return throwIfError(connection.call(args));
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not run " + args[0] + " on redis-server at " + HOST + ":" + port
                    + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Runs {@code INFO <section>} and returns its {@code key:value} lines in order (section headers
     * and blank lines skipped).
     */
    public Map<String, String> info(String section) {
        Object reply = command("INFO", section);
        return RespConnection.infoFields(reply instanceof String text ? text : "");
    }

    /**
     * How often {@code command} has been called since start (or {@link #resetStats()}), from the
     * {@code calls=} field of {@code cmdstat_<command>} in {@code INFO commandstats}; 0 when absent.
     * Lets tests prove, for example, that no {@code evalsha} ran after an unlock.
     */
    public long commandCount(String command) {
        String stats = info("commandstats").get("cmdstat_" + command.toLowerCase(Locale.ROOT));
        if (stats == null) {
            return 0;
        }
        for (String field : stats.split(",")) {
            if (field.startsWith("calls=")) {
                return Long.parseLong(field.substring("calls=".length()));
            }
        }
        return 0;
    }

    /** Resets command statistics ({@code CONFIG RESETSTAT}), so {@link #commandCount} starts at 0. */
    public void resetStats() {
        command("CONFIG", "RESETSTAT");
    }

    /** Deletes all keys of all databases ({@code FLUSHALL}). */
    public void flushAll() {
        command("FLUSHALL");
    }

    @Override
    public String toString() {
        Process current = process;
        return "redis-server[" + HOST + ":" + port + (current == null ? ", stopped" : ", pid " + current.pid()) + "]";
    }

    // ------------------------------------------------------------------------------------------
    // Starting

    private synchronized void launchOnFreePort() {
        for (int attempt = 1; attempt <= MAX_PORT_ATTEMPTS; attempt++) {
            port = FreePorts.next(clusterEnabled);
            if (launch()) {
                return;
            }
            // Another process grabbed the port between our probe and redis-server's bind: pick again.
        }
        throw new IllegalStateException("redis-server could not bind a free port in " + MAX_PORT_ATTEMPTS
                + " attempts. Log tail:\n" + log.tail());
    }

    /**
     * Starts the process on {@link #port} and waits until it answers.
     *
     * @return true when running, false when the port was already in use
     * @throws IllegalStateException for any other failure
     */
    private boolean launch() {
        List<String> commandLine = commandLine();
        Process started;
        try {
            log.markStart(port);
            started = new ProcessBuilder(commandLine)
                    .directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.file().toFile()))
                    .start();
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start " + commandLine.get(0) + ": " + ex.getMessage(), ex);
        }
        process = started;
        paused = false;
        watcher = ServerReaper.track(started);
        try {
            started.getOutputStream().close();
        }
        catch (IOException ignored) {
            // The server reads nothing from stdin; an unclosed pipe is harmless.
        }

        Instant deadline = Instant.now().plus(STARTUP_TIMEOUT);
        while (true) {
            if (!started.isAlive()) {
                int exitCode = exitCode(started);
                processEnded();
                String tail = log.tail();
                if (tail.contains(BIND_FAILURE)) {
                    return false;
                }
                throw new IllegalStateException("redis-server exited with code " + exitCode
                        + " during startup on port " + port + ". Command: " + describe(commandLine)
                        + "\nLog tail (" + log.file() + "):\n" + tail);
            }
            if (answersPing(started)) {
                return true;
            }
            if (Instant.now().isAfter(deadline)) {
                started.destroyForcibly();
                processEnded();
                throw new IllegalStateException("redis-server on port " + port + " did not answer PING within "
                        + STARTUP_TIMEOUT.toSeconds() + " s. Command: " + describe(commandLine)
                        + "\nLog tail (" + log.file() + "):\n" + log.tail());
            }
            sleep(20);
        }
    }

    /** The binary, a Sentinel's config file if any, the managed defaults, then the caller's options. */
    private List<String> commandLine() {
        List<String> commandLine = new ArrayList<>(List.of(RedisBinary.path().toString()));
        if (sentinel) {
            Path config = workDir.resolve("sentinel.conf");
            try {
                if (!Files.exists(config)) {
                    Files.createFile(config);
                }
            }
            catch (IOException ex) {
                throw new UncheckedIOException("Could not create the sentinel config file " + config, ex);
            }
            commandLine.add(config.toString());
        }
        commandLine.addAll(List.of(
                "--port", Integer.toString(port),
                "--bind", HOST,
                "--save", "",
                "--appendonly", "no",
                "--daemonize", "no",
                "--dir", workDir.toString(),
                "--protected-mode", "no"));
        commandLine.addAll(extraArgs);
        return commandLine;
    }

    /**
     * True once our process answers: a PING gets {@code +PONG}, and {@code INFO server} names our
     * pid (so a foreign server that happens to hold the port is not mistaken for ours).
     */
    private boolean answersPing(Process started) {
        try (RespConnection connection = new RespConnection(HOST, port, PROBE_CONNECT_TIMEOUT, PROBE_READ_TIMEOUT)) {
            authenticate(connection);
            Object pong = connection.call("PING");
            if (pong instanceof ErrorReplyException error) {
                // Started with an ACL file and no credentials given: it is up, though we cannot verify the pid.
                return error.errorCode().equals("NOAUTH") && started.isAlive();
            }
            if (!"PONG".equals(pong)) {
                return false;
            }
            Object info = connection.call("INFO", "server");
            if (!(info instanceof String text)) {
                return started.isAlive();
            }
            String pid = RespConnection.infoFields(text).get("process_id");
            return pid == null || pid.equals(Long.toString(started.pid()));
        }
        catch (IOException | RuntimeException ex) {
            return false;
        }
    }

    private void authenticate(RespConnection connection) throws IOException {
        String secret = password;
        if (secret == null) {
            return;
        }
        String user = username;
        Object reply = user == null ? connection.call("AUTH", secret) : connection.call("AUTH", user, secret);
        throwIfError(reply);
    }

    private void requestShutdown() {
        try (RespConnection connection = new RespConnection(HOST, port, COMMAND_TIMEOUT, COMMAND_TIMEOUT)) {
            authenticate(connection);
            connection.send("SHUTDOWN", "NOSAVE");
            connection.read(); // normally the server closes the connection without a reply
        }
        catch (IOException | RuntimeException ignored) {
            // EOF is the expected outcome; on anything else stop() falls back to signals.
        }
    }

    // ------------------------------------------------------------------------------------------
    // Small helpers

    /** Called whenever the redis process is gone (stopped, killed or failed to start). */
    private void processEnded() {
        ServerReaper.release(process, watcher);
        watcher = null;
        process = null;
        paused = false;
    }

    private Process requireRunning() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            throw new IllegalStateException(this + " is not running");
        }
        return current;
    }

    private static String describe(List<String> commandLine) {
        List<String> shown = new ArrayList<>(commandLine.size());
        for (int i = 0; i < commandLine.size(); i++) {
            String arg = commandLine.get(i);
            boolean secret = i > 0 && commandLine.get(i - 1).equalsIgnoreCase("--requirepass");
            shown.add(secret ? "******" : arg.isEmpty() ? "\"\"" : arg);
        }
        return String.join(" ", shown);
    }

    private static String valueAfter(List<String> args, String option) {
        String value = null;
        for (int i = 0; i < args.size() - 1; i++) {
            if (args.get(i).equalsIgnoreCase(option)) {
                value = args.get(i + 1);
            }
        }
        return value;
    }

    private static Object throwIfError(Object reply) {
        if (reply instanceof ErrorReplyException error) {
            throw new ErrorReplyException(error.getMessage());
        }
        return reply;
    }

    private static int exitCode(Process ended) {
        try {
            return ended.waitFor();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
        }
    }

    /** An error reply from Redis ({@code -ERR ...}, {@code -WRONGTYPE ...}, {@code -NOAUTH ...}). */
    public static final class ErrorReplyException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        /**
         * An error reply with the text Redis sent after the {@code -}.
         *
         * @param message the error text, starting with its code (e.g. {@code ERR})
         */
        public ErrorReplyException(String message) {
            super(message);
        }

        /**
         * The first word of the error, e.g. {@code ERR}, {@code WRONGTYPE} or {@code NOAUTH}.
         *
         * @return the error code
         */
        public String errorCode() {
            String message = getMessage();
            int space = message.indexOf(' ');
            return space < 0 ? message : message.substring(0, space);
        }
    }
}
