package org.ingestquarantine.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads an age such as {@code 90d}, {@code 12h}, {@code 30m}, {@code 45s} or ISO-8601 {@code P90D}. */
final class AgeConverter implements ITypeConverter<Duration> {

    private static final Pattern SHORT = Pattern.compile("(\\d+)([dhms])");

    @Override
    public Duration convert(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        Matcher m = SHORT.matcher(v);
        try {
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "d" -> Duration.ofDays(n);
                    case "h" -> Duration.ofHours(n);
                    case "m" -> Duration.ofMinutes(n);
                    default -> Duration.ofSeconds(n);
                };
            }
            return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new TypeConversionException("'" + value + "' is not an age; write e.g. 90d, 12h, 30m or 45s");
        }
    }
}
