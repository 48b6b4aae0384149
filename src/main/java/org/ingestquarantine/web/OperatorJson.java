package org.ingestquarantine.web;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.ser.BeanPropertyWriter;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.ingestquarantine.failure.ErrorClass;

/**
 * The JSON form of the operator's answers, for the HTTP API and the commands' {@code --json}: one object,
 * keys in snake_case, instants as ISO-8601 UTC ({@code 2025-03-01T10:00:00Z}), durations as ISO-8601
 * truncated to whole seconds ({@code PT72H}, {@code PT9600H41S}, never a fraction) and, beside each duration
 * field {@code x} of a record, {@code x_seconds}: the same whole seconds as an integer (the fraction dropped,
 * i.e. rounded down for an age; null when {@code x} is), for scripts. Error classes by code.
 */
public final class OperatorJson {

    /** Suffix of the numeric twin of every duration field: {@code oldest_open_age} → {@code oldest_open_age_seconds}. */
    public static final String SECONDS_SUFFIX = "_seconds";

    /** The mapper; also reads request bodies (snake_case keys). */
    static final ObjectMapper MAPPER = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .registerModule(new SimpleModule("iq-values")
                    .setSerializerModifier(new BeanSerializerModifier() {
                        @Override
                        public List<BeanPropertyWriter> changeProperties(SerializationConfig config,
                                BeanDescription description, List<BeanPropertyWriter> properties) {
                            List<BeanPropertyWriter> withSeconds = new ArrayList<>(properties.size());
                            for (BeanPropertyWriter p : properties) {
                                withSeconds.add(p);
                                if (p.getType().hasRawClass(Duration.class)) {
                                    withSeconds.add(new SecondsWriter(p));
                                }
                            }
                            return withSeconds;
                        }
                    })
                    .addSerializer(Instant.class, ToStringSerializer.instance)
                    .addSerializer(Duration.class, new StdSerializer<>(Duration.class) {
                        @Override
                        public void serialize(Duration value, JsonGenerator gen, SerializerProvider provider)
                                throws IOException {
                            gen.writeString(wholeSeconds(value).toString());
                        }
                    })
                    .addSerializer(ErrorClass.class, new StdSerializer<>(ErrorClass.class) {
                        @Override
                        public void serialize(ErrorClass value, JsonGenerator gen, SerializerProvider provider)
                                throws IOException {
                            gen.writeString(value.code());
                        }
                    }));

    private OperatorJson() {
    }

    /** @return {@code d} with its fraction of a second dropped (towards zero: an age is rounded down) */
    static Duration wholeSeconds(Duration d) {
        return d.truncatedTo(ChronoUnit.SECONDS);
    }

    /** Writes a duration property again as {@code <name>_seconds}, an integer (whole seconds, as the ISO form). */
    private static final class SecondsWriter extends BeanPropertyWriter {

        SecondsWriter(BeanPropertyWriter duration) {
            super(duration, new SerializedString(duration.getName() + SECONDS_SUFFIX));
        }

        @Override
        public void serializeAsField(Object bean, JsonGenerator gen, SerializerProvider provider) throws Exception {
            Duration d = (Duration) get(bean);
            gen.writeFieldName(_name);
            if (d == null) {
                gen.writeNull();
            } else {
                gen.writeNumber(wholeSeconds(d).getSeconds());
            }
        }
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
