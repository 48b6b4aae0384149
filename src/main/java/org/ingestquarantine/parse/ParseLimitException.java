package org.ingestquarantine.parse;

/**
 * The document exceeds a limit of {@link ParseLimits} that we check deterministically ourselves, before
 * PDFBox would spend the memory or time. The same bytes always fail the same way under the same limits.
 *
 * <p>Reasons: {@value #PAGE_LIMIT} (property {@code parse.max-pages}), {@value #STREAM_BYTES_LIMIT}
 * ({@code parse.max-stream-bytes}), {@value #IMAGE_PIXEL_LIMIT} ({@code parse.max-image-pixels}).
 */
public final class ParseLimitException extends ParseException {

    /** More real pages than {@code parse.max-pages}. */
    public static final String PAGE_LIMIT = "page_limit";
    /** A stream decodes to more bytes than {@code parse.max-stream-bytes}. */
    public static final String STREAM_BYTES_LIMIT = "stream_bytes_limit";
    /** An image declares more pixels (width times height) than {@code parse.max-image-pixels}. */
    public static final String IMAGE_PIXEL_LIMIT = "image_pixel_limit";

    private final String limitName;
    private final long limitValue;

    ParseLimitException(String reasonCode, String limitName, long limitValue, Throwable cause) {
        super(reasonCode, "document exceeds " + limitName + "=" + limitValue
                + "; raise the limit if such documents are wanted", cause);
        this.limitName = limitName;
        this.limitValue = limitValue;
    }

    /** @return the property name of the limit that was exceeded, e.g. {@code parse.max-pages} */
    public String limitName() {
        return limitName;
    }

    /** @return the configured value of that limit, in the property's unit (pages, bytes or pixels) */
    public long limitValue() {
        return limitValue;
    }

    static ParseLimitException pages(long maxPages) {
        return new ParseLimitException(PAGE_LIMIT, ParseLimits.PROPERTY_MAX_PAGES, maxPages, null);
    }

    static ParseLimitException streamBytes(long maxStreamBytes) {
        return new ParseLimitException(STREAM_BYTES_LIMIT, ParseLimits.PROPERTY_MAX_STREAM_BYTES, maxStreamBytes, null);
    }

    static ParseLimitException imagePixels(long maxImagePixels) {
        return new ParseLimitException(IMAGE_PIXEL_LIMIT, ParseLimits.PROPERTY_MAX_IMAGE_PIXELS, maxImagePixels, null);
    }
}
