package org.ingestquarantine.testsupport;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scrape of a Prometheus text-format endpoint, parsed into samples (name, labels, value), the way
 * Prometheus itself would see them.
 *
 * @param samples every sample line
 */
public record Scrape(List<Sample> samples) {

    /** One sample line. */
    public record Sample(String name, Map<String, String> labels, double value) {
    }

    private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})?\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /**
     * @param url the scrape URL
     * @param timeout longest wait for the whole answer
     * @return the parsed answer
     * @throws Exception when it does not answer 200 within the timeout
     */
    public static Scrape of(URI url, Duration timeout) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(url).timeout(timeout).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(url + " answered " + r.statusCode());
        }
        List<Sample> samples = new ArrayList<>();
        for (String line : r.body().split("\n")) {
            Matcher m = LINE.matcher(line);
            if (line.startsWith("#") || !m.find()) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(4))));
        }
        return new Scrape(samples);
    }

    /** @return every sample name */
    public Set<String> names() {
        Set<String> names = new TreeSet<>();
        samples.forEach(s -> names.add(s.name()));
        return names;
    }

    /**
     * @param name a sample name, e.g. {@code ingest_quarantined_total}
     * @param labels labels the samples must carry (others may be present)
     * @return the sum of the matching samples' values, 0 when none match
     */
    public double sum(String name, Map<String, String> labels) {
        return samples.stream().filter(s -> s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet()))
                .mapToDouble(Sample::value).sum();
    }

    /**
     * @param name a sample name
     * @param labels labels the samples must carry
     * @return whether any sample matches
     */
    public boolean has(String name, Map<String, String> labels) {
        return samples.stream().anyMatch(s -> s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet()));
    }
}
