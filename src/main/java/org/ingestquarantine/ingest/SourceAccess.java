package org.ingestquarantine.ingest;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.pipeline.LogSafe;
import org.ingestquarantine.pipeline.RecordKey;

/**
 * The trust model (DESIGN.md §9): each source is configured with where its documents may live, and a
 * message may make the pipeline read only there. Properties, per source {@code <name>}:
 * <ul>
 *   <li>{@code sources.<name>.file-roots}: comma-separated folders; a {@code file:} URI is allowed when its
 *       REAL path (symlinks and {@code ..} resolved) lies under the real path of one of them;</li>
 *   <li>{@code sources.<name>.http-allow}: comma-separated {@code scheme://host[:port][/path]} prefixes; an
 *       {@code http(s):} URI is allowed when its scheme, host and port (default 80/443) equal a prefix's and
 *       its path, normalised as a server reads it ({@link HttpPath}), starts with the prefix's path; a path with
 *       an encoded slash or a dot segment, encoded or not, is refused;</li>
 *   <li>{@code sources.<name>.http-allow-private}: {@code true} lets that source's allowed hosts resolve to
 *       internal addresses ({@link InternalAddresses}: loopback, link-local, private, unique-local, carrier-grade
 *       NAT, unspecified, and IPv6 forms carrying one); default {@code false}, so an allowed name that resolves to
 *       127.0.0.1, 169.254.169.254 or ::ffff:127.0.0.1 is refused;</li>
 *   <li>{@code sources.<name>.s3-allow}: comma-separated {@code bucket} or {@code bucket/prefix} entries
 *       ({@link S3Prefix}); an {@code s3:} URI is allowed when its bucket equals an entry's and its key, decoded
 *       once and checked by {@link S3Location}, starts with the entry's prefix.</li>
 * </ul>
 * A message for a source with no such properties is refused with reason {@code unknown_source}; a URI
 * outside its source's roots with {@code uri_not_allowed}; a malformed one with {@code invalid_uri}. All are
 * {@link PermanentInputException}s thrown before anything is read. The HTTP connector asks again for every
 * redirect. A host name is resolved once per request, here ({@link UriGuard#checkHttp}), and the connector connects
 * to the address checked, so a DNS answer that changes after the check (DNS rebinding) is not followed.
 */
public final class SourceAccess {

    /** Prefix of every property this class reads. */
    public static final String PREFIX = "sources.";
    private static final Pattern KEY = Pattern.compile(Pattern.quote(PREFIX) + "(.+)\\.(file-roots|http-allow|http-allow-private|s3-allow)");

    private final Map<String, Source> sources;
    private final HostResolver resolver;

    private SourceAccess(Map<String, Source> sources, HostResolver resolver) {
        this.sources = Map.copyOf(sources);
        this.resolver = resolver;
    }

    /**
     * @param properties properties; only keys {@code sources.<name>.file-roots}, {@code .http-allow},
     *     {@code .http-allow-private} and {@code .s3-allow} are read, others are ignored
     * @return the configured sources
     * @throws IllegalStateException when a root is not an existing folder or a prefix is malformed, or a source's
     *     name is reserved ({@link RecordKey#isReservedSource})
     */
    public static SourceAccess fromProperties(Properties properties) {
        Map<String, Source.Builder> builders = new TreeMap<>();
        for (String key : properties.stringPropertyNames()) {
            Matcher m = KEY.matcher(key);
            if (!m.matches()) {
                continue;
            }
            if (RecordKey.isReservedSource(m.group(1))) {
                throw new IllegalStateException(key + ": source names beginning with " + RecordKey.RESERVED_SOURCE_PREFIX
                        + " are reserved (" + RecordKey.INVALID_MESSAGES_SOURCE + ", " + RecordKey.OTHER_SOURCES
                        + "); name the source without it");
            }
            Source.Builder b = builders.computeIfAbsent(m.group(1), Source.Builder::new);
            String value = properties.getProperty(key).trim();
            switch (m.group(2)) {
                case "file-roots" -> b.fileRoots(key, value);
                case "http-allow" -> b.httpAllow(key, value);
                case "s3-allow" -> b.s3Allow(key, value);
                default -> b.allowPrivate = Boolean.parseBoolean(value);
            }
        }
        Map<String, Source> sources = new TreeMap<>();
        builders.forEach((name, b) -> sources.put(name, b.build()));
        return new SourceAccess(sources, HostResolver.SYSTEM);
    }

    /**
     * @param hosts the lookup of every HTTP host name checked (tests answer what they like)
     * @return the same sources, resolving with {@code hosts}
     */
    public SourceAccess resolvingWith(HostResolver hosts) {
        return new SourceAccess(sources, hosts);
    }

    /**
     * @param properties properties; keys {@code sources.<name>.<setting>} are read, any setting (owner,
     *     base-uri, file-roots, ...)
     * @return every source name those keys configure, sorted
     */
    public static java.util.SortedSet<String> namesIn(Properties properties) {
        java.util.SortedSet<String> names = new java.util.TreeSet<>();
        for (String key : properties.stringPropertyNames()) {
            int last = key.lastIndexOf('.');
            if (key.startsWith(PREFIX) && last > PREFIX.length()) {
                names.add(key.substring(PREFIX.length(), last));
            }
        }
        return names;
    }

    /** @return the configured source names, sorted */
    public List<String> sourceNames() {
        return sources.keySet().stream().sorted().toList();
    }

    /**
     * @param source a source name, may be {@code null}
     * @return whether it is configured here: a message naming it passes {@link #guard}'s source check
     */
    public boolean isConfigured(String source) {
        return source != null && sources.containsKey(source);
    }

    /**
     * @param source a source name
     * @return the real paths of its {@code sources.<name>.file-roots}, empty for a source without any (or not
     *     configured): where a {@link FolderLister} walks
     */
    public List<Path> fileRoots(String source) {
        Source s = source == null ? null : sources.get(source);
        return s == null ? List.of() : s.fileRoots();
    }

    /**
     * @param source the message's source
     * @return the guard for that source's URIs, to be asked before the first read and on every redirect
     * @throws PermanentInputException with reason {@code unknown_source} when the source is not configured
     */
    public UriGuard guard(String source) {
        Source s = sources.get(source);
        if (s == null) {
            throw new PermanentInputException("unknown_source", "source '" + LogSafe.identity(source)
                    + "' is not configured; configure sources.<name>.file-roots, .http-allow or .s3-allow for it");
        }
        return new UriGuard() {
            @Override
            public URI check(URI uri) throws IOException {
                return s.check(source, uri, resolver);
            }

            @Override
            public HttpTarget checkHttp(URI uri) throws IOException {
                return s.checkHttp(source, uri, resolver);
            }
        };
    }

    /**
     * @param source a source name
     * @return its {@code s3-allow} entries, empty when it has none or is not configured
     */
    public List<S3Prefix> s3Allow(String source) {
        Source s = sources.get(source);
        return s == null ? List.of() : s.s3Allow();
    }

    /**
     * Checks a message's URI against its source before anything is read.
     *
     * @param source the message's source
     * @param uri the message's URI
     * @return the URI to read ({@link UriGuard#check})
     * @throws PermanentInputException {@code unknown_source}, {@code uri_not_allowed} or {@code invalid_uri}
     * @throws IOException when a host name cannot be resolved
     */
    public URI check(String source, URI uri) throws IOException {
        return guard(source).check(uri);
    }

    private record HttpPrefix(String scheme, String host, int port, String path) {

        static HttpPrefix parse(String key, String value) {
            URI u;
            try {
                u = URI.create(value);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(key + ": '" + value + "' is not a scheme://host[:port] prefix", e);
            }
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https") || u.getHost() == null) {
                throw new IllegalStateException(key + ": '" + value + "' is not an http(s)://host[:port] prefix");
            }
            String path;
            try {
                path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "" : HttpPath.normalise(u.getRawPath());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(key + ": '" + value + "' is refused: " + e.getMessage(), e);
            }
            return new HttpPrefix(scheme, u.getHost().toLowerCase(Locale.ROOT), defaultPort(scheme, u.getPort()), path);
        }

        boolean admits(String scheme, String host, int port, String path) {
            return this.scheme.equals(scheme) && this.host.equals(host) && this.port == port && path.startsWith(this.path);
        }
    }

    private static int defaultPort(String scheme, int port) {
        return port != -1 ? port : "https".equals(scheme) ? 443 : 80;
    }

    private record Source(List<Path> fileRoots, List<HttpPrefix> httpAllow, boolean allowPrivate, List<S3Prefix> s3Allow) {

        URI check(String name, URI uri, HostResolver resolver) throws IOException {
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            return switch (scheme) {
                case "file" -> checkFile(name, uri);
                case "http", "https" -> checkHttp(name, uri, resolver).uri();
                case "s3" -> checkS3(name, uri);
                default -> throw notAllowed(name, uri, "its scheme has no roots");
            };
        }

        private URI checkFile(String name, URI uri) throws IOException {
            Path path = filePath(uri);
            Path real;
            try {
                real = path.toRealPath();
            } catch (NoSuchFileException e) {
                // say "not found" only inside the roots: outside them, the answer would tell what exists
                if (under(path.normalize())) {
                    throw e;
                }
                throw notAllowed(name, uri, "it is outside the source's file-roots");
            } catch (java.nio.file.AccessDeniedException e) {
                throw e;
            } catch (java.nio.file.FileSystemException e) {
                // a path no file can have (a name over the file system's bound, a file used as a folder, a loop of
                // links): refused as the URI's, named by the file system's reason, only inside the roots
                if (under(path.normalize())) {
                    throw new PermanentInputException("invalid_uri", "the uri " + LogSafe.identity(uri.toString())
                            + " names a path the file system refuses (" + e.getReason() + ", for a path of "
                            + path.toString().length() + " characters)");
                }
                throw notAllowed(name, uri, "it is outside the source's file-roots");
            }
            if (!under(real)) {
                throw notAllowed(name, uri, "its real path is outside the source's file-roots");
            }
            return real.toUri();
        }

        private boolean under(Path path) {
            return fileRoots.stream().anyMatch(path::startsWith);
        }

        /** Checks an http(s) URI against the prefixes, then resolves its host once and checks every address. */
        HttpTarget checkHttp(String name, URI uri, HostResolver resolver) {
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                throw notAllowed(name, uri, "an http(s) request may lead only to an http(s) URI");
            }
            String host = uri.getHost();
            if (host == null || uri.getRawUserInfo() != null) {
                throw new PermanentInputException("invalid_uri", "the uri " + LogSafe.identity(uri.toString())
                        + " has no host, or carries user information");
            }
            String h = host.toLowerCase(Locale.ROOT);
            int port = defaultPort(scheme, uri.getPort());
            String path;
            try {
                path = HttpPath.normalise(uri.getRawPath());
            } catch (IllegalArgumentException e) {
                throw notAllowed(name, uri, e.getMessage());
            }
            if (httpAllow.stream().noneMatch(p -> p.admits(scheme, h, port, path))) {
                throw notAllowed(name, uri, "it matches none of the source's http-allow prefixes");
            }
            InetAddress[] addresses = HttpTarget.resolve(uri, resolver);
            if (!allowPrivate) {
                for (InetAddress a : addresses) {
                    if (InternalAddresses.isInternal(a)) {
                        throw notAllowed(name, uri, "its host resolves to the internal address " + a.getHostAddress()
                                + "; set sources." + name + ".http-allow-private=true to allow that");
                    }
                }
            }
            return new HttpTarget(uri, addresses[0]);
        }

        private URI checkS3(String name, URI uri) {
            S3Location location = S3Location.of(uri);
            if (s3Allow.stream().noneMatch(p -> p.admits(location))) {
                throw notAllowed(name, uri, "its bucket and key match none of the source's s3-allow entries");
            }
            return uri;
        }

        private static PermanentInputException notAllowed(String name, URI uri, String why) {
            return new PermanentInputException("uri_not_allowed", "source '" + LogSafe.identity(name) + "' may not read "
                    + LogSafe.identity(uri.toString()) + ": " + why);
        }

        static final class Builder {
            private final String name;
            private final List<Path> fileRoots = new ArrayList<>();
            private final List<HttpPrefix> httpAllow = new ArrayList<>();
            private final List<S3Prefix> s3Allow = new ArrayList<>();
            private boolean allowPrivate;

            Builder(String name) {
                this.name = name;
            }

            void fileRoots(String key, String value) {
                for (String folder : split(value)) {
                    try {
                        fileRoots.add(Path.of(folder).toRealPath());
                    } catch (IOException | RuntimeException e) {
                        // no cause: the one line a start-up prints is this one, naming the setting, not the file error's
                        throw new IllegalStateException(key + ": folder '" + folder + "' does not exist or cannot be read ("
                                + e.getClass().getSimpleName() + "); configure an existing folder");
                    }
                }
            }

            void httpAllow(String key, String value) {
                split(value).forEach(v -> httpAllow.add(HttpPrefix.parse(key, v)));
            }

            void s3Allow(String key, String value) {
                split(value).forEach(v -> s3Allow.add(S3Prefix.parse(key, v)));
            }

            Source build() {
                return new Source(List.copyOf(fileRoots), List.copyOf(httpAllow), allowPrivate, List.copyOf(s3Allow));
            }

            private static List<String> split(String value) {
                return Arrays.stream(value.split(",")).map(String::trim).filter(v -> !v.isEmpty()).toList();
            }
        }
    }

    /**
     * @param uri a {@code file:} URI
     * @return its path
     * @throws PermanentInputException with reason {@code invalid_uri} when it names no local path (an
     *     authority, a query, a relative path)
     */
    static Path filePath(URI uri) {
        try {
            return Path.of(uri);
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            throw new PermanentInputException("invalid_uri", "the uri " + LogSafe.identity(uri.toString())
                    + " is not a local file path (" + e.getMessage() + ")");
        }
    }
}
