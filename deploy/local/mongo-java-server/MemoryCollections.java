// The memory backend (tests) with the launcher's query plans (Main.java, Queries.java). Its
// collections keep the server's lock around reads too: their documents live in a plain list.
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

final class IdFirstMemoryBackend extends MemoryBackend {
    @Override
    public MemoryDatabase openOrCreateDatabase(String name) {
        return new MemoryDatabase(name, getCursorRegistry()) {
            @Override
            protected MemoryCollection openOrCreateCollection(String collection, CollectionOptions options) {
                return new IdFirstMemoryCollection(this, collection, options, cursorRegistry);
            }
        };
    }
}

final class IdFirstMemoryCollection extends MemoryCollection {
    IdFirstMemoryCollection(MongoDatabase db, String name, CollectionOptions options, CursorRegistry registry) {
        super(db, name, options, registry);
    }

    @Override
    protected QueryResult queryDocuments(Document query, Document orderBy, int skip, int limit, int batchSize, Document projection) {
        Document idOnly = Queries.idPart(query);
        Index<Integer> index = idOnly == null ? null : Queries.idIndex(getIndexes(), idOnly);
        if (index != null) return matchDocuments(query, index.getPositions(idOnly), orderBy, skip, limit, batchSize, projection);
        Iterable<Integer> points = Queries.pointPositions(getIndexes(), Queries.pointQueries(query));
        if (points != null) return matchDocuments(query, points, orderBy, skip, limit, batchSize, projection);
        return super.queryDocuments(query, orderBy, skip, limit, batchSize, projection);
    }

    @Override
    protected boolean documentMatchesQuery(Document document, Document query) {
        Queries.TimeLimit.check();
        return super.documentMatchesQuery(document, query);
    }

    @Override
    protected QueryResult matchDocumentsFromStream(Document query, Stream<Document> documents, int skip, int limit,
            int batchSize, Comparator<Document> order, Document projection) {
        if (order == null) return super.matchDocumentsFromStream(query, documents, skip, limit, batchSize, null, projection);
        // Decided before the stream is touched: a stream used once (even by `filter`) cannot be
        // handed on (a sorted find without a limit failed with "stream has already been operated
        // upon or closed").
        if (!Queries.keepsTopPage(skip, limit)) {
            return super.matchDocumentsFromStream(query, documents, skip, limit, batchSize, Queries.TimeLimit.checked(order), projection);
        }
        List<Document> page = Queries.topPage(documents.filter(d -> documentMatchesQuery(d, query)), order, skip, limit);
        return super.matchDocumentsFromStream(query, page.stream(), 0, 0, batchSize, null, projection);
    }
}
