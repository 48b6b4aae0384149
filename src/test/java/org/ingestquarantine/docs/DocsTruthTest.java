package org.ingestquarantine.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Ensures the documentation names only configuration keys that exist, states the shipped defaults, and links only
 * to files that exist: README.md, docs/*.md, routes/README.md and the alert rules are checked against the shipped
 * properties files and the list of keys read elsewhere in docs/configuration.md.
 */
class DocsTruthTest {

    private static final Path REPO = Path.of("").toAbsolutePath();
    private static final Path REFERENCE = Path.of("docs", "configuration.md");
    /** The properties files the application ships, by the name a reference heading uses for them. */
    private static final Map<String, Path> SHIPPED_FILES = shippedFiles();
    private static final String DEFAULT_FILE = "application.properties";
    private static final String BOOT_FILE = "ingest-quarantine-boot.properties";
    /** Keys that belong to Spring Boot itself, listed as read by it (no file of ours reads them). */
    private static final Pattern SPRING_BOOT_KEY = Pattern.compile("(spring|server|management)\\..+");

    /**
     * A dotted name in code: lower-case first segment, then segments that may be camel case or a template
     * ({@code <name>}); {@code -D} and {@code --} before it are options naming a key. A trailing {@code .*} names a group.
     * A segment beginning with {@code _} is a reserved name ({@code sources._...} is refused), not a key.
     */
    private static final Pattern DOTTED = Pattern.compile(
            "(?<![\\w/.$<{@\\\\-])(?:-D|--)?([a-z][a-z0-9_-]*(?:\\.(?:[A-Za-z0-9][A-Za-z0-9_-]*|<[a-z-]+>))+(?:\\.\\*)?)(?![\\w(/-])");
    private static final Pattern INLINE_CODE = Pattern.compile("`([^`\\n]+)`");
    private static final Pattern FENCE = Pattern.compile("(?ms)^\\s*```[^\\n]*\\n(.*?)^\\s*```");
    private static final Pattern LINK = Pattern.compile("\\[[^\\]\\n]*]\\(([^)\\s]+)\\)");
    /** The last segment of a class named by its package ({@code ingest.RepairClose}). */
    private static final Pattern CLASS_NAME = Pattern.compile("[A-Z][a-z].*");
    private static final Set<String> FILE_ENDINGS = Set.of("json", "yml", "yaml", "sql", "properties", "md", "java",
            "jar", "jsa", "xml", "png", "txt", "tsv", "log", "html", "js", "css", "sh", "lock");

    /** Every key a page, README or alert rule names exists in a shipped properties file or is listed as read elsewhere. */
    @Test
    void shouldNameOnlyKeysThatExist() throws IOException {
        Known known = known();
        List<String> unknown = new ArrayList<>();
        Set<String> named = new TreeSet<>();
        for (Path doc : markdownDocs()) {
            for (String key : keysNamedIn(codeOf(Files.readString(doc)), known)) {
                named.add(key);
                if (!known.names(key)) {
                    unknown.add(doc + ": `" + key + "`");
                }
            }
        }
        for (Path rules : alertRuleFiles()) {
            for (String key : keysNamedIn(Files.readString(rules), known)) {
                named.add(key);
                if (!known.names(key)) {
                    unknown.add(rules + ": " + key);
                }
            }
        }
        // the reading finds keys in code spans, in fenced blocks as -D and -- options, templates, and the alert rules
        assertThat(named).as("keys the docs name").contains("operator.retention-age-days", "sqs.endpoint-url",
                "iq.data-dir", "sources.<name>.file-roots", "camel.metrics.*", "failure.<class>.retries");
        assertThat(unknown).as("keys named in the docs that no application*.properties ships and %s does not list under"
                + " \"Keys without a line in application.properties\"", REFERENCE).isEmpty();
    }

    /** The reference names every key the properties files ship. */
    @Test
    void shouldListEveryShippedKeyInTheReference() throws IOException {
        List<Row> rows = referenceRows("default");
        Set<String> missing = new TreeSet<>();
        for (Map<String, String> file : shipped().values()) {
            for (String key : file.keySet()) {
                if (rows.stream().noneMatch(r -> matches(r.key(), key))) {
                    missing.add(key);
                }
            }
        }
        assertThat(missing).as("shipped keys %s has no row for", REFERENCE).isEmpty();
    }

    /**
     * Each default the reference states is the value the file its table names ships ({@code application.properties}
     * unless the heading names another), and a key that file ships has its value stated.
     */
    @Test
    void shouldStateEveryDefaultAsShipped() throws IOException {
        Map<String, Map<String, String>> shipped = shipped();
        List<String> wrong = new ArrayList<>();
        for (Row row : referenceRows("default")) {
            if (row.key().contains("<")) {
                assertThat(shipped.values().stream().flatMap(f -> f.keySet().stream()).anyMatch(k -> matches(row.key(), k)))
                        .as("%s: the template %s matches a shipped key", REFERENCE, row.key()).isTrue();
                continue;
            }
            Map<String, String> file = shipped.get(row.file());
            String value = file.containsKey(row.key()) || !row.file().equals(DEFAULT_FILE) ? file.get(row.key())
                    : shipped.get(BOOT_FILE).get(row.key());
            if (value == null) {
                assertThat(shipped.values().stream().anyMatch(f -> f.containsKey(row.key())))
                        .as("%s: %s is in no shipped file; list it under keys without a line", REFERENCE, row.key())
                        .isTrue();
                if (!row.file().equals(DEFAULT_FILE)) {
                    wrong.add(row.key() + " is not in " + row.file());
                }
                continue;
            }
            String stated = row.cell().equals("(empty)") ? "" : unquoted(row.cell());
            if (!value.equals(stated)) {
                wrong.add(row.key() + " (" + row.file() + "): stated " + row.cell() + ", shipped `" + value + "`");
            }
        }
        assertThat(wrong).as("defaults in %s that differ from the shipped files", REFERENCE).isEmpty();
    }

    /** Each key the reference lists as read elsewhere has no line in a shipped file and is read where it says. */
    @Test
    void shouldReadEveryListedKeyWhereTheReferenceSays() throws IOException {
        Map<String, Map<String, String>> shipped = shipped();
        List<Row> listed = referenceRows("read by");
        assertThat(listed).as("keys listed as read elsewhere in %s", REFERENCE).isNotEmpty();
        for (Row row : listed) {
            assertThat(shipped.values().stream().anyMatch(f -> f.keySet().stream().anyMatch(k -> matches(row.key(), k))))
                    .as("%s lists %s as read elsewhere, but a properties file ships it: move its row", REFERENCE,
                            row.key()).isFalse();
            if (row.cell().equals("Spring Boot")) {
                assertThat(row.key()).as("a key Spring Boot reads").matches(SPRING_BOOT_KEY);
                continue;
            }
            Path reader = reader(unquoted(row.cell()));
            assertThat(reader).as("%s: %s is read by %s", REFERENCE, row.key(), row.cell()).isRegularFile();
            String needle = row.key().contains(">") ? row.key().substring(row.key().lastIndexOf('.') + 1) : row.key();
            String text = Files.readString(reader);
            boolean read = reader.toString().endsWith(".java")
                    ? Pattern.compile("\"[^\"\\n]*" + Pattern.quote(needle) + "[^\"\\n]*\"").matcher(text).find()
                    : text.contains(needle);
            assertThat(read).as("%s names %s (%s)", reader, needle, row.key()).isTrue();
        }
    }

    /** Every relative link of README.md, docs/*.md and routes/README.md names a file or folder of the repository. */
    @Test
    void shouldLinkOnlyToFilesThatExist() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path doc : markdownDocs()) {
            Matcher m = LINK.matcher(withoutCode(Files.readString(doc)));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("(?i)[a-z][a-z0-9+.-]*:.*")) {
                    continue; // https:, mailto: ...: not a file
                }
                String path = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                String anchor = target.contains("#") ? target.substring(target.indexOf('#') + 1) : "";
                Path file = path.isEmpty() ? doc.toAbsolutePath() : doc.toAbsolutePath().getParent()
                        .resolve(URLDecoder.decode(path, StandardCharsets.UTF_8)).normalize();
                if (!file.startsWith(REPO)) {
                    broken.add(doc + ": " + target + " points outside the repository");
                } else if (!Files.exists(file)) {
                    broken.add(doc + ": " + target + " names no file");
                } else if (!anchor.isEmpty() && file.toString().endsWith(".md") && !anchors(file).contains(anchor)) {
                    broken.add(doc + ": " + target + " names no heading of " + REPO.relativize(file));
                }
            }
        }
        assertThat(broken).as("links in the docs").isEmpty();
    }

    /**
     * The known names: shipped keys and the keys listed as read elsewhere (templates and groups included), the
     * property values (queue and topic names such as {@code ingest.dlq} are no keys) and the prefixes that make a
     * dotted name look like one of our keys.
     */
    private record Known(Set<String> keys, Set<String> listed, Set<String> values, Set<String> prefixes) {

        boolean names(String named) {
            Pattern pattern = Pattern.compile(named.endsWith(".*")
                    ? regexOf(named.substring(0, named.length() - 1)) + ".+" : regexOf(named));
            return Stream.concat(keys.stream(), listed.stream())
                    .anyMatch(k -> k.equals(named) || pattern.matcher(k).matches() || matches(k, named));
        }
    }

    private static Known known() throws IOException {
        Set<String> keys = new TreeSet<>();
        Set<String> values = new TreeSet<>();
        for (Map<String, String> file : shipped().values()) {
            keys.addAll(file.keySet());
            // a queue, topic or exchange name (ingest.dlq) is a value, not a key
            file.values().forEach(v -> values.addAll(List.of(v.split("[,\\s]+"))));
        }
        Set<String> listed = referenceRows("read by").stream().map(Row::key).collect(Collectors.toCollection(TreeSet::new));
        // our prefixes: those of the keys, and our packages' names (a key quarantine.overdue-after-days looks like ours)
        Set<String> prefixes = Stream.concat(keys.stream(), listed.stream()).map(k -> k.substring(0, k.indexOf('.')))
                .collect(Collectors.toCollection(TreeSet::new));
        try (Stream<Path> packages = Files.list(Path.of("src", "main", "java", "org", "ingestquarantine"))) {
            packages.filter(Files::isDirectory).forEach(p -> prefixes.add(p.getFileName().toString()));
        }
        return new Known(keys, listed, values, prefixes);
    }

    /** The dotted names under our prefixes in {@code text}, less property values and file names. */
    private static Set<String> keysNamedIn(String text, Known known) {
        Set<String> named = new TreeSet<>();
        Matcher m = DOTTED.matcher(text);
        while (m.find()) {
            String name = m.group(1);
            String last = name.substring(name.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
            if (known.prefixes().contains(name.substring(0, name.indexOf('.'))) && !known.values().contains(name)
                    && !FILE_ENDINGS.contains(last)
                    && !CLASS_NAME.matcher(name.substring(name.lastIndexOf('.') + 1)).matches()) {
                named.add(name);
            }
        }
        return named;
    }

    /** {@code pattern} (a key, or a template with {@code <name>} segments) names the key {@code key}. */
    static boolean matches(String pattern, String key) {
        return !key.contains("<") && key.matches(regexOf(pattern));
    }

    /** A key or template as a regular expression: each {@code <name>} segment stands for any one segment. */
    private static String regexOf(String template) {
        return Stream.of(template.split("\\.", -1))
                .map(s -> s.matches("<[a-z-]+>") ? "[^.]+" : Pattern.quote(s))
                .collect(Collectors.joining("\\."));
    }

    /** A row of a reference table: its key, its second cell, and the properties file its table is about. */
    record Row(String key, String cell, String file) {
    }

    /** The rows of the reference's tables whose header is {@code | key | <second> | ...}. */
    private static List<Row> referenceRows(String second) throws IOException {
        List<Row> rows = new ArrayList<>();
        String file = DEFAULT_FILE;
        boolean inTable = false;
        for (String line : Files.readAllLines(REFERENCE)) {
            if (line.startsWith("#")) {
                file = SHIPPED_FILES.keySet().stream().filter(f -> line.contains("`" + f + "`")).findFirst()
                        .orElse(DEFAULT_FILE);
                inTable = false;
            } else if (line.startsWith("|")) {
                String[] cells = line.substring(1).split("\\|");
                if (cells.length >= 2 && cells[0].trim().equals("key")) {
                    inTable = cells[1].trim().equals(second);
                } else if (inTable && !cells[0].trim().startsWith("---")) {
                    rows.add(new Row(unquoted(cells[0].trim()), cells[1].trim(), file));
                }
            } else {
                inTable = false;
            }
        }
        return rows;
    }

    private static String unquoted(String cell) {
        return cell.startsWith("`") && cell.endsWith("`") && cell.length() >= 2 ? cell.substring(1, cell.length() - 1)
                : cell;
    }

    /** {@code ingest/SourceAccess} is a class of ours (main or boot module); anything else a path from the root. */
    private static Path reader(String named) {
        for (String module : List.of("src", "boot/src")) {
            Path java = Path.of(module, "main", "java", "org", "ingestquarantine", named + ".java");
            if (Files.isRegularFile(java)) {
                return java;
            }
        }
        return Path.of(named);
    }

    private static Map<String, Map<String, String>> shipped() throws IOException {
        Map<String, Map<String, String>> shipped = new LinkedHashMap<>();
        for (Map.Entry<String, Path> file : SHIPPED_FILES.entrySet()) {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(file.getValue())) {
                p.load(r);
            }
            Map<String, String> values = new LinkedHashMap<>();
            p.stringPropertyNames().forEach(k -> values.put(k, p.getProperty(k).trim()));
            shipped.put(file.getKey(), values);
        }
        return shipped;
    }

    private static Map<String, Path> shippedFiles() {
        Map<String, Path> files = new LinkedHashMap<>();
        try (Stream<Path> list = Files.list(Path.of("src", "main", "resources"))) {
            list.filter(p -> p.getFileName().toString().matches("application(-[a-z]+)?\\.properties")).sorted()
                    .forEach(p -> files.put(p.getFileName().toString(), p));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        files.put(BOOT_FILE, Path.of("boot", "src", "main", "resources", BOOT_FILE));
        return files;
    }

    private static List<Path> markdownDocs() throws IOException {
        List<Path> docs = new ArrayList<>(List.of(Path.of("README.md"), Path.of("routes", "README.md")));
        try (Stream<Path> list = Files.list(Path.of("docs"))) {
            list.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        assertThat(docs).as("documentation files").hasSizeGreaterThan(3);
        return docs;
    }

    private static List<Path> alertRuleFiles() throws IOException {
        try (Stream<Path> list = Files.list(Path.of("monitoring", "prometheus"))) {
            return list.filter(p -> p.toString().endsWith(".yml")).sorted().toList();
        }
    }

    /** The inline code spans and fenced blocks of a Markdown text, where keys are named. */
    private static String codeOf(String markdown) {
        StringBuilder code = new StringBuilder();
        Matcher fence = FENCE.matcher(markdown);
        while (fence.find()) {
            code.append(fence.group(1)).append('\n');
        }
        Matcher inline = INLINE_CODE.matcher(FENCE.matcher(markdown).replaceAll(""));
        while (inline.find()) {
            code.append(inline.group(1)).append('\n');
        }
        return code.toString();
    }

    private static String withoutCode(String markdown) {
        return INLINE_CODE.matcher(FENCE.matcher(markdown).replaceAll("")).replaceAll("");
    }

    /** GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens. */
    private static Set<String> anchors(Path file) throws IOException {
        Set<String> anchors = new TreeSet<>();
        Map<String, Integer> seen = new LinkedHashMap<>();
        // a "# comment" line in a fenced block is no heading
        for (String line : FENCE.matcher(Files.readString(file)).replaceAll("").split("\n")) {
            if (line.matches("#{1,6} .*")) {
                String slug = line.replaceFirst("#+ ", "").trim().toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
                int n = seen.merge(slug, 1, Integer::sum);
                anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
            }
        }
        return anchors;
    }
}
