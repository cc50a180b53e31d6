/* categories_placeholder.c: empty archive index tables with the symbols of formats.md §1.3, used
 * only when the build is asked for PLACEHOLDER=1 (before the synthetic corpus exists). The real
 * build compiles ../build/synth/categories.c from `python -m corpus synth --seed 1`. */
typedef struct { char name[32]; unsigned int offset, csize, usize; } FILELIST;

#define T(n) FILELIST n[1] = { { { 0 }, 0, 0, 0 } };
T(cmnCCSTbl) T(gcmnCCSTbl) T(demoCCSTbl) T(desktopCCSTbl) T(toppageCCSTbl) T(menuCCSTbl)
T(effectCCSTbl) T(equipCCSTbl) T(skillCCSTbl) T(spcCCSTbl) T(pcCCSTbl) T(npcCCSTbl)
T(gimmickCCSTbl) T(enemyCCSTbl) T(bossCCSTbl) T(townCCSTbl) T(fieldCCSTbl) T(dungeonCCSTbl)
T(eventCCSTbl) T(directCCSTbl)

FILELIST *categoryFDTbl[20] = {
    cmnCCSTbl, gcmnCCSTbl, demoCCSTbl, desktopCCSTbl, toppageCCSTbl, menuCCSTbl, effectCCSTbl,
    equipCCSTbl, skillCCSTbl, spcCCSTbl, pcCCSTbl, npcCCSTbl, gimmickCCSTbl, enemyCCSTbl,
    bossCCSTbl, townCCSTbl, fieldCCSTbl, dungeonCCSTbl, eventCCSTbl, directCCSTbl };
unsigned long long cateCDOfsTbl[20] = { 0 };
