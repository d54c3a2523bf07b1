-- Keywords fold diacritics as FTS5's 'unicode61 remove_diacritics 2' does ("café" and "cafe"
-- are one word), without the unaccent extension (not every server has it): orma_fold maps each
-- Latin letter FTS5 folds to the ASCII letter FTS5 gives, and drops the combining marks it drops
-- (a decomposed "cafe\u0301"). The table was read from FTS5 itself; tests/store/test_pg_fold.py
-- checks it against FTS5 for every letter and mark. The stored text is never changed: only the
-- tsvector (and its token count) is made from the folded text, and queries fold the same way.

CREATE FUNCTION orma_fold(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $fold$ SELECT translate(
    t,
        'ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíî'
        'ïñòóôõöùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĒēĔĕĖėĘęĚěĜ'
        'ĝĞğĠġĢģĤĥĨĩĪīĬĭĮįİĴĵĶķĹĺĻļĽľŃńŅņŇňŌōŎŏŐő'
        'ŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽ'
        'žſƠơƯưǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜǞǟǦǧǨǩǪǫǬǭǰǴǵǸǹǺǻȀ'
        'ȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȞȟȦȧȨȩȪȫȬȭȮȯȰ'
        'ȱȲȳḀḁḂḃḄḅḆḇḈḉḊḋḌḍḎḏḐḑḒḓḔḕḖḗḘḙḚḛḜḝḞḟḠḡḢḣḤ'
        'ḥḦḧḨḩḪḫḬḭḮḯḰḱḲḳḴḵḶḷḸḹḺḻḼḽḾḿṀṁṂṃṄṅṆṇṈṉṊṋṌ'
        'ṍṎṏṐṑṒṓṔṕṖṗṘṙṚṛṜṝṞṟṠṡṢṣṤṥṦṧṨṩṪṫṬṭṮṯṰṱṲṳṴ'
        'ṵṶṷṸṹṺṻṼṽṾṿẀẁẂẃẄẅẆẇẈẉẊẋẌẍẎẏẐẑẒẓẔẕẖẗẘẙẛẠạ'
        'ẢảẤấẦầẨẩẪẫẬậẮắẰằẲẳẴẵẶặẸẹẺẻẼẽẾếỀềỂểỄễỆệỈỉ'
        'ỊịỌọỎỏỐốỒồỔổỖỗỘộỚớỜờỞởỠỡỢợỤụỦủỨứỪừỬửỮữỰự'
        'ỲỳỴỵỶỷỸỹÅ'
        || U&'\0300\0301\0302\0303\0304\0306\0307\0308\0309\030A\030B\030C\030F\0311\031B\0323\0324\0325\0326\0327\0328\032D\032E\0330\0331',
        'aaaaaaceeeeiiiinooooouuuuyaaaaaaceeeeiii'
        'inooooouuuuyyaaaaaaccccccccddeeeeeeeeeeg'
        'ggggggghhiiiiiiiiijjkkllllllnnnnnnoooooo'
        'rrrrrrssssssssttttuuuuuuuuuuuuwwyyyzzzzz'
        'zsoouuaaiioouuuuuuuuuuaaggkkoooojggnnaaa'
        'aaaeeeeiiiioooorrrruuuusstthhaaeeooooooo'
        'oyyaabbbbbbccddddddddddeeeeeeeeeeffgghhh'
        'hhhhhhhiiiikkkkkkllllllllmmmmmmnnnnnnnno'
        'ooooooopppprrrrrrrrssssssssssttttttttuuu'
        'uuuuuuuvvvvwwwwwwwwwwxxxxyyzzzzzzhtwysaa'
        'aaaaaaaaaaaaaaaaaaaaaaeeeeeeeeeeeeeeeeii'
        'iioooooooooooooooooooooooouuuuuuuuuuuuuu'
        'yyyyyyyya'
) $fold$;

ALTER TABLE sentences DROP COLUMN tsv;  -- and its GIN index
ALTER TABLE sentences DROP COLUMN tokens;
ALTER TABLE sentences ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
    to_tsvector('orma'::regconfig, orma_fold(text)) || to_tsvector('simple'::regconfig, dates)
) STORED;
ALTER TABLE sentences ADD COLUMN tokens integer GENERATED ALWAYS AS (orma_tokens(
    to_tsvector('orma'::regconfig, orma_fold(text)) || to_tsvector('simple'::regconfig, dates)
)) STORED;
CREATE INDEX sentences_tsv ON sentences USING gin (tsv);

UPDATE space_text SET tokens = coalesce(
    (SELECT sum(s.tokens) FROM sentences s WHERE s.space = space_text.space), 0
);
