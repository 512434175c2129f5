package io.github.redislock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redislock.annotation.DistributedLock;

import org.junit.jupiter.api.Test;

import org.springframework.core.Ordered;

/**
 * The property table of docs/configuration.md is the configuration metadata the build generates, as a
 * user reads it: every {@code redis-lock.*} property has a row, and every row's default is the one the
 * property has. A default changed in the code, or a property added without a row, fails the build.
 *
 * <p>A row names one property or several ({@code `redis-lock.redis.username`, `.password`}) and gives
 * one default for all of them or one each, in order: a value in backticks, or {@code (unset)} /
 * {@code (empty)} (also with a remark, {@code (unset: `watchdog-timeout`)}) for a property without one.
 * {@code Ordered.LOWEST_PRECEDENCE - 10} is read as the number it is.
 *
 * <p>Likewise the attribute table of docs/annotation.md is {@link DistributedLock}: a row per attribute, and
 * a number or enum constant in backticks first in the default cell is the attribute's default; any other
 * cell ({@code (required, or `keys`)}, {@code `Class#method`}, empty) stands for an attribute whose default is
 * empty, its value then computed or required.
 */
class DocumentedDefaultsTest {

    private static final Pattern METADATA_NAME = Pattern.compile("\"name\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern DEFAULT_VALUE = Pattern.compile("\"defaultValue\"\\s*:\\s*(\"[^\"]*\"|[^,}\\s]+)");
    private static final Pattern ROW = Pattern.compile("^\\|\\s*(`(?:redis-lock|sample)\\.[^|]+?)\\s*\\|\\s*([^|]+?)\\s*\\|.*");
    private static final Pattern DEFAULT = Pattern.compile("`([^`]+)`|\\((unset|empty)[^)]*\\)");
    /** A row of the attribute table: the attribute, and its default cell (a value in backticks, or words for a computed or no default). */
    private static final Pattern ATTRIBUTE_ROW = Pattern.compile("^\\|\\s*`([a-z][A-Za-z]*)`\\s*\\|\\s*([^|]*?)\\s*\\|.*");
    private static final Pattern ORDERED = Pattern.compile("Ordered\\.(LOWEST|HIGHEST)_PRECEDENCE\\s*([+-])\\s*(\\d+)");
    /** A property without a default, as the table writes it ({@code (unset)}, or words such as {@code a free port}). */
    private static final String NONE = "(none)";

    @Test
    void everyPropertyHasARowInTheConfigurationTableWithItsDefault() throws IOException {
        Map<String, String> metadata = metadataDefaults();
        assertThat(metadata).as("redis-lock properties in " + DocumentedNamesTest.METADATA).hasSizeGreaterThan(10);
        Map<String, String> documented = documentedDefaults(Manual.ROOT.resolve("docs/configuration.md"));

        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, String> row : documented.entrySet()) {
            String property = row.getKey().replaceAll("\\.<[^>]+>.*$", ""); // roles.<role>.lease: the map's own property
            if (!metadata.containsKey(property)) {
                wrong.add(row.getKey() + ": no such property in the metadata");
            } else if (!row.getKey().equals(property)) {
                continue; // a map entry's own properties have no metadata default to compare
            } else if (!metadata.get(property).equals(row.getValue())) {
                wrong.add(property + ": documented default " + row.getValue() + ", but the property's is " + metadata.get(property));
            }
        }
        TreeSet<String> undocumented = new TreeSet<>(metadata.keySet());
        documented.keySet().forEach(name -> undocumented.remove(name.replaceAll("\\.<[^>]+>.*$", "")));
        assertThat(wrong).as("rows of docs/configuration.md's property table that the metadata contradicts").isEmpty();
        assertThat(undocumented).as("properties without a row in docs/configuration.md's property table").isEmpty();
    }

    @Test
    void everySamplePropertyHasARowInTheSamplePageWithTheValueTheSampleSets() throws IOException {
        Properties sample = new Properties();
        try (Reader reader = Files.newBufferedReader(Manual.ROOT.resolve("sample-app/src/main/resources/application.properties"))) {
            sample.load(reader);
        }
        Map<String, String> documented = documentedDefaults(Manual.ROOT.resolve("docs/sample.md"));
        List<String> wrong = new ArrayList<>();
        documented.forEach((property, value) -> {
            String set = sample.getProperty(property, NONE);
            if (!set.equals(value)) {
                wrong.add(property + ": documented " + value + ", but application.properties sets " + set);
            }
        });
        TreeSet<String> undocumented = new TreeSet<>(sample.stringPropertyNames());
        undocumented.removeIf(property -> !property.startsWith("sample.") || documented.containsKey(property));
        assertThat(wrong).as("rows of docs/sample.md's property table that the sample's application.properties contradicts").isEmpty();
        assertThat(undocumented).as("sample properties without a row in docs/sample.md").isEmpty();
    }

    @Test
    void everyAttributeOfDistributedLockHasARowInTheAnnotationPageWithItsDefault() throws IOException {
        Map<String, String> documented = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Manual.ROOT.resolve("docs/annotation.md"), StandardCharsets.UTF_8)) {
            Matcher row = ATTRIBUTE_ROW.matcher(line);
            if (row.matches()) {
                documented.put(row.group(1), row.group(2));
            }
        }
        List<String> wrong = new ArrayList<>();
        TreeSet<String> undocumented = new TreeSet<>();
        for (Method attribute : DistributedLock.class.getDeclaredMethods()) {
            String cell = documented.remove(attribute.getName());
            if (cell == null) {
                undocumented.add(attribute.getName());
                continue;
            }
            Object actual = attribute.getDefaultValue();
            Matcher value = DEFAULT.matcher(cell);
            String first = value.lookingAt() && value.group(1) != null ? value.group(1) : null;
            boolean stated = first != null && (first.matches("-?\\d+") || actual instanceof Enum<?>);
            String shown = actual instanceof Object[] array ? Arrays.toString(array) : String.valueOf(actual);
            if (stated ? !first.equals(shown) : !(shown.isEmpty() || shown.equals("[]"))) {
                wrong.add(attribute.getName() + ": documented default '" + cell + "', but the attribute's is '" + shown + "'");
            }
        }
        assertThat(wrong).as("rows of docs/annotation.md's attribute table that DistributedLock contradicts").isEmpty();
        assertThat(undocumented).as("attributes of DistributedLock without a row in docs/annotation.md").isEmpty();
        assertThat(documented.keySet()).as("rows of docs/annotation.md naming no attribute of DistributedLock").isEmpty();
    }

    @Test
    void aRowMayNameSeveralPropertiesWithOneDefaultEachOrOneForAll() {
        assertThat(row("| `redis-lock.redis.username`, `.password`, `.ssl` | (unset), (unset), `false` | login |"))
                .containsExactly(Map.entry("redis-lock.redis.username", NONE), Map.entry("redis-lock.redis.password", NONE),
                        Map.entry("redis-lock.redis.ssl", "false"));
        assertThat(row("| `redis-lock.redis.sentinel.master`, `.nodes` | (unset) | a group |"))
                .containsExactly(Map.entry("redis-lock.redis.sentinel.master", NONE), Map.entry("redis-lock.redis.sentinel.nodes", NONE));
        assertThat(row("| `redis-lock.aspect-order` | `Ordered.LOWEST_PRECEDENCE - 10` | order |"))
                .containsExactly(Map.entry("redis-lock.aspect-order", String.valueOf(Ordered.LOWEST_PRECEDENCE - 10)));
        assertThat(row("| `redis-lock.integration.lease` | (unset: `watchdog-timeout`) | lease |"))
                .containsExactly(Map.entry("redis-lock.integration.lease", NONE));
        assertThat(row("| `sample.embedded-redis.port` | a free port | port |")).containsExactly(Map.entry("sample.embedded-redis.port", NONE));
    }

    /** Each property of the metadata with its default as text, {@link #NONE} for none. */
    private static Map<String, String> metadataDefaults() throws IOException {
        String json = Files.readString(DocumentedNamesTest.METADATA, StandardCharsets.UTF_8);
        int hints = json.indexOf("\"hints\"");
        String properties = json.substring(json.indexOf("\"properties\""), hints < 0 ? json.length() : hints);
        Map<String, String> defaults = new LinkedHashMap<>();
        // A property's entry runs from its name to the next one's (its description may hold braces).
        Matcher name = METADATA_NAME.matcher(properties);
        boolean found = name.find();
        while (found) {
            String property = name.group(1);
            int start = name.end();
            found = name.find();
            Matcher value = DEFAULT_VALUE.matcher(properties.substring(start, found ? name.start() : properties.length()));
            if (property.startsWith("redis-lock.")) {
                defaults.put(property, value.find() ? value.group(1).replaceAll("^\"|\"$", "") : NONE);
            }
        }
        return defaults;
    }

    private static Map<String, String> documentedDefaults(Path page) throws IOException {
        Map<String, String> defaults = new LinkedHashMap<>();
        for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
            defaults.putAll(row(line));
        }
        assertThat(defaults).as("property rows in " + page).hasSizeGreaterThan(4);
        return defaults;
    }

    /** The properties a table row names, each with its documented default; none for a line that is no such row. */
    static Map<String, String> row(String line) {
        Map<String, String> row = new LinkedHashMap<>();
        Matcher cells = ROW.matcher(line);
        if (!cells.matches()) {
            return row;
        }
        List<String> names = new ArrayList<>();
        for (String name : cells.group(1).split(",")) {
            String stripped = name.strip().replace("`", "");
            names.add(stripped.startsWith(".") ? names.get(0).substring(0, names.get(0).lastIndexOf('.')) + stripped : stripped);
        }
        List<String> defaults = new ArrayList<>();
        Matcher value = DEFAULT.matcher(cells.group(2));
        while (value.find()) {
            defaults.add(value.group(1) != null ? number(value.group(1)) : NONE);
        }
        for (int i = 0; i < names.size(); i++) {
            row.put(names.get(i), defaults.isEmpty() ? NONE : defaults.size() == 1 ? defaults.get(0) : i < defaults.size() ? defaults.get(i) : "(missing)");
        }
        return row;
    }

    private static String number(String value) {
        Matcher ordered = ORDERED.matcher(value.strip());
        if (!ordered.matches()) {
            return value;
        }
        long base = ordered.group(1).equals("LOWEST") ? Ordered.LOWEST_PRECEDENCE : Ordered.HIGHEST_PRECEDENCE;
        long offset = Long.parseLong(ordered.group(3));
        return String.valueOf(ordered.group(2).equals("-") ? base - offset : base + offset);
    }
}
