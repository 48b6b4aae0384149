package org.ingestquarantine.web;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import org.ingestquarantine.failure.ErrorClass;

/**
 * The JSON form of the operator's answers, for the HTTP API and the commands' {@code --json}: one object,
 * keys in snake_case, instants as ISO-8601 UTC ({@code 2025-03-01T10:00:00Z}), durations as ISO-8601
 * ({@code PT72H}), error classes by code.
 */
public final class OperatorJson {

    /** The mapper; also reads request bodies (snake_case keys). */
    static final ObjectMapper MAPPER = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .registerModule(new SimpleModule("iq-values")
                    .addSerializer(Instant.class, ToStringSerializer.instance)
                    .addSerializer(Duration.class, ToStringSerializer.instance)
                    .addSerializer(ErrorClass.class, new StdSerializer<>(ErrorClass.class) {
                        @Override
                        public void serialize(ErrorClass value, JsonGenerator gen, SerializerProvider provider)
                                throws IOException {
                            gen.writeString(value.code());
                        }
                    }));

    private OperatorJson() {
    }

    /**
     * @param value a record of the operator package (or a map/list of them)
     * @return its JSON text on one line
     * @throws IllegalStateException if it cannot be written (a type Jackson cannot handle)
     */
    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }
}
