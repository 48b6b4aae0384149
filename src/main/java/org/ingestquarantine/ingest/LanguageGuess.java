package org.ingestquarantine.ingest;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.ingestquarantine.parse.ParsedDocument;
import org.ingestquarantine.pipeline.Settings;

/**
 * A guess at a parsed document's language, for a route's own filter (bean {@code languageGuess}; routes/README.md,
 * "A new stage: a language filter"): the language whose stopword list makes the largest share of the document's
 * words, if that share is at least the minimum; else {@value #UNDETERMINED}. Words are runs of letters, compared
 * case-folded; a word counts for every list it is on. A guess, not a detector: a short or mixed document may be
 * {@value #UNDETERMINED} or the wrong one. It keeps nothing of the text and logs nothing.
 */
public final class LanguageGuess {

    /** The guess when no list reaches the minimum share (ISO 639-2's code for "undetermined"). */
    public static final String UNDETERMINED = "und";
    /** The languages, comma-separated; each one's list is {@value #STOPWORDS_PREFIX}{@code <code>}. */
    public static final String LANGUAGES = "language-guess.languages";
    /** A language's stopwords, space-separated, lower case. */
    public static final String STOPWORDS_PREFIX = "language-guess.stopwords.";
    /** The share of a document's words a list must make for its language to be the guess, percent. */
    public static final String MIN_PERCENT = "language-guess.min-stopword-percent";

    private static final Pattern NOT_LETTERS = Pattern.compile("[^\\p{L}]+");

    private final Map<String, Set<String>> stopwords;
    private final long minPercent;

    /**
     * @param stopwords each language's stopwords (lower case), in the order ties are decided
     * @param minPercent the share of words a list must make, percent
     */
    public LanguageGuess(Map<String, Set<String>> stopwords, long minPercent) {
        this.stopwords = new LinkedHashMap<>(stopwords);
        this.minPercent = minPercent;
    }

    /**
     * @param settings the application's properties: {@value #LANGUAGES}, each language's list, {@value #MIN_PERCENT}
     * @return the guess configured there
     */
    public static LanguageGuess configured(Settings settings) {
        Map<String, Set<String>> lists = new LinkedHashMap<>();
        for (String code : settings.required(LANGUAGES).split(",")) {
            String c = code.strip();
            lists.put(c, Set.of(settings.required(STOPWORDS_PREFIX + c).strip().split("\\s+")));
        }
        return new LanguageGuess(lists, settings.requiredNumber(MIN_PERCENT));
    }

    /**
     * @param document the parsed document (the body after the {@code parse} step)
     * @return the code of the language guessed, e.g. {@code en}, or {@value #UNDETERMINED}
     */
    public String guess(ParsedDocument document) {
        long words = 0;
        Map<String, Long> hits = new HashMap<>();
        for (String page : document.pageTexts()) {
            for (String word : NOT_LETTERS.split(page.toLowerCase(Locale.ROOT))) {
                if (word.isEmpty()) {
                    continue;
                }
                words++;
                stopwords.forEach((code, list) -> {
                    if (list.contains(word)) {
                        hits.merge(code, 1L, Long::sum);
                    }
                });
            }
        }
        String best = UNDETERMINED;
        long most = 0;
        for (String code : stopwords.keySet()) {
            long n = hits.getOrDefault(code, 0L);
            if (n > most) {
                best = code;
                most = n;
            }
        }
        return words > 0 && most * 100 >= minPercent * words ? best : UNDETERMINED;
    }
}
