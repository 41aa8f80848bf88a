package dev.flushline.schema;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test helper: JSON text to the object model ValueCodec takes (every number a BigDecimal that
 * keeps the text's scale), via the Jackson that cassandra-all brings onto the test classpath.
 */
final class JsonModel {
    private JsonModel() {}

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

    static Object parse(String json) {
        try {
            return convert(MAPPER.readValue(json, Object.class));
        } catch (Exception e) {
            throw new IllegalArgumentException(json, e);
        }
    }

    private static Object convert(Object o) {
        if (o instanceof BigInteger) return new BigDecimal((BigInteger) o);
        if (o instanceof Number && !(o instanceof BigDecimal)) return new BigDecimal(o.toString());
        if (o instanceof List) {
            List<Object> out = new ArrayList<>();
            for (Object e : (List<?>) o) out.add(convert(e));
            return out;
        }
        if (o instanceof Map) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) out.put((String) e.getKey(), convert(e.getValue()));
            return out;
        }
        return o;
    }
}
