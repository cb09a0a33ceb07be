// Invented code lists and name pools shared by every demo dataset, so cross-dataset examples line up.

interface District {
  readonly code: string;
  /** Share of households, persons and facilities (deliberately uneven). */
  readonly weight: number;
  readonly municipalities: readonly string[];
  /** Centre of the district's synthetic facility coordinates. */
  readonly latitude: number;
  readonly longitude: number;
}

export const demoVocabulary = {
  /** Reference date for ages and the last payment cycle. */
  referenceDate: '2026-01-01',
  districts: [
    {
      code: 'lakeside',
      weight: 30,
      municipalities: ['Mirrowick', 'Shorehaven', 'Reedmouth'],
      latitude: 10.62,
      longitude: 38.74,
    },
    {
      code: 'highmoor',
      weight: 22,
      municipalities: ['Cragholt', 'Windlee', 'Tarnby'],
      latitude: 11.18,
      longitude: 39.21,
    },
    {
      code: 'redfield',
      weight: 18,
      municipalities: ['Rustmere', 'Claybourne'],
      latitude: 10.28,
      longitude: 39.36,
    },
    {
      code: 'stonebridge',
      weight: 14,
      municipalities: ['Flintwater', 'Quarrydale'],
      latitude: 10.94,
      longitude: 38.42,
    },
    {
      code: 'willowbank',
      weight: 10,
      municipalities: ['Osierford', 'Saltwillow'],
      latitude: 11.42,
      longitude: 38.63,
    },
    { code: 'dunmere', weight: 6, municipalities: ['Dunmere Vale'], latitude: 10.41, longitude: 38.31 },
  ] satisfies readonly District[],
  /** Weighted code lists: [code, relative weight]. */
  weights: {
    householdSize: [
      [1, 12],
      [2, 20],
      [3, 22],
      [4, 18],
      [5, 12],
      [6, 8],
      [7, 5],
      [8, 3],
    ],
    enrollmentStatus: [
      ['enrolled', 58],
      ['pending', 14],
      ['suspended', 16],
      ['exited', 12],
    ],
    povertyBand: [
      ['high', 30],
      ['medium', 40],
      ['low', 30],
    ],
    sex: [
      ['female', 49],
      ['male', 49],
      ['other', 2],
    ],
    paymentChannel: [
      ['mobile_money', 45],
      ['bank_transfer', 35],
      ['cash_agent', 20],
    ],
    paymentStatus: [
      ['paid', 91],
      ['failed', 6],
      ['reversed', 3],
    ],
    /** The latest cycle is still being paid out. */
    latestCyclePaymentStatus: [
      ['paid', 70],
      ['pending', 30],
    ],
    facilityType: [
      ['hospital', 8],
      ['health_centre', 25],
      ['health_post', 45],
      ['clinic', 22],
    ],
    ownership: [
      ['public', 60],
      ['faith_based', 15],
      ['private', 15],
      ['ngo', 10],
    ],
  },
  givenNames: [
    'Aldra',
    'Bexmira',
    'Corvin',
    'Dellamy',
    'Elowen',
    'Fennick',
    'Galvia',
    'Hesper',
    'Ilsabet',
    'Jorvan',
    'Kestrel',
    'Lunaria',
    'Marrowin',
    'Nerissa',
    'Orrin',
    'Pellam',
    'Quilla',
    'Roswin',
    'Sabrel',
    'Tamsel',
    'Ulvar',
    'Vesnia',
    'Wrenna',
    'Yorrel',
    'Zephra',
    'Aubrin',
    'Brisca',
    'Caddoc',
    'Deverel',
    'Emmerine',
  ],
  familyNames: [
    'Fakewell',
    'Sampleton',
    'Testbury',
    'Mockford',
    'Placeholm',
    'Dummond',
    'Exampleton',
    'Notreal',
    'Fictorby',
    'Pretendry',
    'Synthwick',
    'Madeupson',
    'Draftwood',
    'Mockridge',
    'Stubbings',
    'Pseudley',
  ],
  streets: ['Fake St', 'Sample Rd', 'Placeholder Ave', 'Mock Lane', 'Example Way', 'Dummy Close'],
  registrarNotes: [
    'Birth registered late',
    'Spelling of family name corrected',
    'Duplicate record merged',
    'Migrated from paper ledger',
    'Identity document reissued',
  ],
  caseNotes: [
    'Home visit scheduled',
    'Awaiting income verification',
    'Referred to livelihoods programme',
    'Grievance resolved at district office',
    'Contact details to be confirmed',
  ],
  facilityNotes: [
    'Generator needs servicing',
    'Access road floods in rainy season',
    'Solar panels installed',
    'Staff housing under repair',
    'Cold chain audit pending',
  ],
} as const;
