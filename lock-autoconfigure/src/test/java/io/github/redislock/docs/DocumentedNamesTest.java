package io.github.redislock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * What the manual names, the code has: a renamed property, log line or exception message fails the
 * build until the manual follows.
 *
 * <ul>
 * <li>Every {@code redis-lock.*} property named in README.md or docs/ (prose and code blocks) is in the
 * configuration metadata the build generates: a property, a group, or a map whose key the name
 * shows as {@code <role>}; a name ending in {@code *} stands for some property under it.</li>
 * <li>Every log line or message the manual quotes exists in the main sources of the repository: a
 * {@code `code span`} that reads as a sentence (it starts with a capitalised word and has three
 * words or more, none of them code), and each line of a fenced block without a language that does.
 * The variable parts of a quote (quoted keys, numbers, {@code <placeholders>}, {@code ...}, words
 * with {@code :}, {@code #}, {@code /} or digits) are skipped; the text between them must appear in
 * the string literals of the Java sources (or in a build file), the longest runs of words first. A
 * changed word is caught; a changed phrase whose words some other literal also has may not be.</li>
 * </ul>
 */
class DocumentedNamesTest {

    static final Path METADATA = Path.of("target", "classes", "META-INF", "spring-configuration-metadata.json");
    private static final Pattern DOCUMENTED_PROPERTY = Pattern.compile("(?<![\\w.-])redis-lock\\.(?:[a-z0-9<>*.-]|\\[[^]\\s`]*])*[a-z0-9>*\\]]");
    private static final Pattern METADATA_NAME = Pattern.compile("\"name\"\\s*:\\s*\"(redis-lock[^\"]*)\"");
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`]+)`");
    private static final Pattern JAVA_STRING = Pattern.compile("\"((?:[^\"\\\\\\n]|\\\\.)*)\"");
    /** The first word of a quoted sentence: a capitalised word, perhaps followed by ':' or ','. */
    private static final Pattern SENTENCE_START = Pattern.compile("^[A-Z][a-z]+[:,]?$");
    /** A word that is a value the code fills in, not text it writes. */
    private static final Pattern VARIABLE_WORD = Pattern.compile(".*[0-9#/<>@{}=\\[\\]]+.*|'.*|.*'[.,:;)]?|\\.\\.\\.|…|.+:.+|N|x");

    @Test
    void everyDocumentedPropertyExistsInTheConfigurationMetadata() throws IOException {
        Set<String> known = new TreeSet<>();
        Matcher name = METADATA_NAME.matcher(Files.readString(METADATA, StandardCharsets.UTF_8));
        while (name.find()) {
            known.add(name.group(1));
        }
        assertThat(known).as("redis-lock properties in " + METADATA).hasSizeGreaterThan(10);

        List<String> unknown = new ArrayList<>();
        int checked = 0;
        for (Manual.Page page : Manual.pages()) {
            String text = String.join("\n", page.lines());
            Matcher property = DOCUMENTED_PROPERTY.matcher(text);
            while (property.find()) {
                checked++;
                if (!exists(property.group(), known)) {
                    unknown.add(page.name() + ":" + page.lineOf(text, property.start()) + ": " + property.group());
                }
            }
        }
        assertThat(checked).as("properties named in the manual").isGreaterThan(20);
        assertThat(unknown).as("properties the manual names but the configuration metadata lacks").isEmpty();
    }

    private static boolean exists(String documented, Set<String> known) {
        String name = documented.replaceAll("\\[[^]]*]", "");
        int wildcard = name.indexOf('*');
        if (wildcard >= 0) {
            String prefix = name.substring(0, wildcard);
            return known.stream().anyMatch(property -> property.startsWith(prefix));
        }
        int mapKey = name.indexOf(".<");
        if (mapKey >= 0) {
            return known.contains(name.substring(0, mapKey));
        }
        int bracket = documented.indexOf('[');
        return known.contains(name) || known.stream().anyMatch(property -> property.startsWith(name + "."))
                || bracket >= 0 && known.contains(documented.substring(0, bracket)); // a map key in brackets: roles[orders:poller].lease
    }

    @Test
    void everyQuotedLogLineAndMessageIsWrittenByTheCode() {
        List<String> literals = literalsOfTheSources();
        List<String> missing = new ArrayList<>();
        int checked = 0;
        for (Manual.Page page : Manual.pages()) {
            String prose = page.prose();
            Matcher span = CODE_SPAN.matcher(prose);
            while (span.find()) {
                String quote = span.group(1).replaceAll("\\s+", " ").strip();
                if (isSentence(quote)) {
                    checked++;
                    String absent = absentText(quote, literals);
                    if (absent != null) {
                        missing.add(page.name() + ":" + page.lineOf(prose, span.start()) + ": `" + quote + "` (no source writes \"" + absent + "\")");
                    }
                }
            }
            for (Manual.Block block : page.blocks()) {
                if (!block.language().isEmpty()) {
                    continue;
                }
                for (int i = 0; i < block.lines().size(); i++) {
                    String quote = block.lines().get(i).strip();
                    if (isSentence(quote)) {
                        checked++;
                        String absent = absentText(quote, literals);
                        if (absent != null) {
                            missing.add(page.name() + ":" + (block.line() + 1 + i) + ": " + quote + " (no source writes \"" + absent + "\")");
                        }
                    }
                }
            }
        }
        assertThat(checked).as("quoted log lines and messages").isGreaterThan(5);
        assertThat(missing).as("log lines and messages the manual quotes but no source writes").isEmpty();
    }

    @Test
    void aQuoteMatchesTheLiteralsItsCodeConcatenatesAndNotAChangedWord() {
        List<String> literals = List.of("Released ", " after holding it ", " ms", "Skipped ", ": lock '", "' is held by ", "owner ");

        assertThat(absentText("Released 'lock:x' after holding it 48 ms", literals)).isNull();
        assertThat(absentText("Skipped Reports#nightlyReport: lock 'job:report' is held by owner <clientId>:57", literals)).isNull();
        assertThat(absentText("Released 'lock:x' after keeping it 48 ms", literals)).isEqualTo("keeping");
    }

    @Test
    void onlyWhatReadsAsASentenceIsTakenForAQuote() {
        assertThat(isSentence("Acquired 'lock:x' after waiting 12 ms")).isTrue();
        assertThat(isSentence("RedisLocker.builder(connectionFactory)")).isFalse();
        assertThat(isSentence("Mono<Order> order = locks.withLock(key)")).isFalse();
        assertThat(isSentence("GET /actuator/locks")).isFalse();
    }

    /** Whether a quote reads as a log line or message: a capitalised first word, three words or more, no code. */
    static boolean isSentence(String quote) {
        String[] words = quote.split(" ");
        return words.length >= 3 && SENTENCE_START.matcher(words[0]).matches() && !quote.contains(" = ") && !quote.contains(";")
                && !quote.contains("->") && !quote.matches(".*\\w\\(.*") && !quote.startsWith("|");
    }

    /**
     * @return null when every fixed part of the quote is in some literal, else the first part that is not
     */
    static String absentText(String quote, List<String> literals) {
        List<List<String>> runs = new ArrayList<>();
        List<String> run = new ArrayList<>();
        for (String word : quote.split(" ")) {
            if (VARIABLE_WORD.matcher(word).matches()) {
                if (!run.isEmpty()) {
                    runs.add(run);
                    run = new ArrayList<>();
                }
            } else {
                run.add(word);
            }
        }
        if (!run.isEmpty()) {
            runs.add(run);
        }
        for (List<String> words : runs) {
            // Longest first: a run the code writes in one literal is checked as one; one split over
            // several literals (a value in between that the quote does not show) a piece at a time.
            int from = 0;
            while (from < words.size()) {
                int to = words.size();
                while (to > from && !inSomeLiteral(String.join(" ", words.subList(from, to)), literals)) {
                    to--;
                }
                if (to == from) {
                    return words.get(from);
                }
                from = to;
            }
        }
        return null;
    }

    private static boolean inSomeLiteral(String text, List<String> literals) {
        return literals.stream().anyMatch(literal -> literal.contains(text));
    }

    /**
     * The string literals of every main Java source of the repository, and the build files as they are. Build output and
     * hidden directories are not entered: files come and go there while the build runs (a JVM's {@code .attach_pid} file
     * vanished under a walk once), and a file that vanishes between listing and reading is skipped.
     */
    static List<String> literalsOfTheSources() {
        Set<String> literals = new LinkedHashSet<>();
        try {
            Files.walkFileTree(Manual.ROOT, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes) {
                    String name = String.valueOf(directory.getFileName());
                    return !directory.equals(Manual.ROOT) && (name.equals("target") || name.startsWith("."))
                            ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                    String path = Manual.ROOT.relativize(file).toString().replace('\\', '/');
                    if (path.contains("/src/main/java/") && path.endsWith(".java")) {
                        Matcher string = JAVA_STRING.matcher(Files.readString(file, StandardCharsets.UTF_8));
                        while (string.find()) {
                            literals.add(string.group(1).replace("\\\"", "\"").replace("\\n", " ").replaceAll("\\s+", " "));
                        }
                    } else if (path.endsWith("pom.xml")) {
                        literals.add(Files.readString(file, StandardCharsets.UTF_8).replaceAll("\\s+", " "));
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException failure) throws IOException {
                    if (failure instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw failure;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return List.copyOf(literals);
    }
}
